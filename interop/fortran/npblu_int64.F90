! The npblu procedures for 8-byte integers and logicals: callers built with
! -fdefault-integer-8 (gfortran, which makes default LOGICAL 8 bytes too) or -i8.
! Internal to module npblu, which merges its generics with npblu_int32's.
module npblu_int64
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int32, int64
  use npblu_c_interfaces
  use npblu_base, only: npblu_solver, NPBLU_OK, NPBLU_ERROR_ARGUMENT
#ifdef NPBLU_HAVE_MPI_F08
  use mpi_f08, only: MPI_Comm
#endif
  implicit none
  private

#define IK int64
! (logical(int64): the logical kind of 8 bytes where kind numbers are byte counts, as in gfortran,
! flang, ifx and nvfortran)
#define LK int64
#include "npblu_kind_procedures.inc"

end module npblu_int64
