! npblu_checkpoints: Fortran bindings (ISO_C_BINDING) for checkpoints, beside
! module npblu. Checkpoints every N iterations and restarts are options:
!   call npblu_set_option(solver, "checkpoint", "run.h5", ierr)
!   call npblu_set_option(solver, "checkpoint-every", "50", ierr)
!   call npblu_set_option(solver, "restart", "run.h5", ierr)
! npblu_checkpoint_now writes one between the calls of a run in steps.
! ierr may be a default integer or integer(int64) (for -fdefault-integer-8
! callers): the generic picks the specific.
! (Not "module npblu_checkpoint": a module name is a global identifier, and
! the C function npblu_checkpoint, bound below, already is one.)
module npblu_checkpoints
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int32, int64
  use npblu, only: npblu_solver
  implicit none
  private

  public :: npblu_checkpoint_now

  ! Collective: writes a checkpoint of the run in steps to path.
  interface npblu_checkpoint_now
    module procedure checkpoint_now_int32, checkpoint_now_int64
  end interface

  interface
    integer(c_int) function c_checkpoint(handle, path) bind(c, name="npblu_checkpoint")
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: handle
      character(kind=c_char), dimension(*), intent(in) :: path
    end function
  end interface

contains

  subroutine checkpoint_now_int32(solver, path, ierr)
    type(npblu_solver), intent(in) :: solver
    character(len=*), intent(in) :: path
    integer(int32), intent(out) :: ierr
    ierr = int(c_checkpoint(solver%ptr, trim(path)//c_null_char), int32)
  end subroutine

  subroutine checkpoint_now_int64(solver, path, ierr)
    type(npblu_solver), intent(in) :: solver
    character(len=*), intent(in) :: path
    integer(int64), intent(out) :: ierr
    ierr = int(c_checkpoint(solver%ptr, trim(path)//c_null_char), int64)
  end subroutine

end module npblu_checkpoints
