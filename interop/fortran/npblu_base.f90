! npblu_base: what the npblu module's procedures share whatever the caller's
! integer kind: the solver type (with its finalizer), the status codes and
! the procedures without integer arguments. Callers USE npblu, which
! re-exports this.
module npblu_base
  use, intrinsic :: iso_c_binding, only: c_ptr, c_null_ptr, c_int, c_char, c_associated
  use npblu_c_interfaces, only: c_release, c_copy_error_message, c_string_to_fortran
  use npblu_status
  implicit none
  private

  ! The status codes (module npblu_status, shared with module npblu_balance).
  public :: NPBLU_OK, NPBLU_ERROR_ARGUMENT, NPBLU_ERROR_RUN, NPBLU_ERROR_NO_RESULT, NPBLU_ERROR_ORDER

  ! A handle on the C side. npblu_destroy (collective) is the way to end it.
  ! The finalizer is a safety net for a solver that goes out of scope (or is
  ! passed to npblu_create again) without it: it frees the handle's memory
  ! and calls no MPI function, because a finalizer may run on one rank alone
  ! or after MPI_Finalize, where the collective MPI_Comm_free would hang or
  ! fail; the handle's duplicate communicator then stays allocated until
  ! MPI_Finalize. Do not copy a solver (a = b): both would name one handle.
  type, public :: npblu_solver
    type(c_ptr) :: ptr = c_null_ptr
  contains
    final :: release_solver
  end type npblu_solver

  public :: npblu_error_message

contains

  subroutine release_solver(solver)
    type(npblu_solver), intent(inout) :: solver
    integer(c_int) :: ignored
    if (c_associated(solver%ptr)) ignored = c_release(solver%ptr)
  end subroutine

  ! The text of the last error on this solver ("" if none).
  subroutine npblu_error_message(solver, message)
    type(npblu_solver), intent(in) :: solver
    character(len=*), intent(out) :: message
    character(kind=c_char) :: buf(len(message) + 1)
    integer(c_int) :: ignored
    ignored = c_copy_error_message(solver%ptr, buf, int(size(buf), c_int))
    message = c_string_to_fortran(buf)
  end subroutine

end module npblu_base
