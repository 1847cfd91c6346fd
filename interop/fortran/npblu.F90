! npblu: Fortran 2008 bindings (ISO_C_BINDING) for the NPB LU benchmark on
! columnwise stripes, over the C API of npblu.h. Every procedure returns a
! status in its last argument ierr (NPBLU_OK = 0); npblu_error_message gives
! the text of the last error, npblu_status_string the meaning of a status.
!
! Every procedure is generic over the caller's integer kind: default
! (4-byte) integers and logicals, or 8-byte ones (a caller compiled with
! -fdefault-integer-8 / -i8), resolved at compile time. npblu_create also
! takes an mpi_f08 type(MPI_Comm) where the MPI has module mpi_f08.
module npblu
  use npblu_base
  use npblu_int32
  use npblu_int64
  implicit none
  public
end module npblu
