! The npblu procedures for default integers and logicals (compiled without -fdefault-integer-8).
! Internal to module npblu, which merges its generics with npblu_int64's.
module npblu_int32
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int32, int64
  use npblu_c_interfaces
  use npblu_base, only: npblu_solver, NPBLU_OK, NPBLU_ERROR_ARGUMENT
#ifdef NPBLU_HAVE_MPI_F08
  use mpi_f08, only: MPI_Comm
#endif
  implicit none
  private

#define IK int32
#define LK kind(.true.)
#include "npblu_kind_procedures.inc"

end module npblu_int32
