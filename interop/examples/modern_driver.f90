! A modern Fortran driver: the caller owns MPI_Init/MPI_Finalize, runs class S
! twice in the same MPI session through the npblu module, checks the results,
! and checks that an invalid class gives an error code and a message.
program modern_driver
  use mpi
  use npblu
  implicit none
  type(npblu_solver) :: solver
  integer :: ierr, rank, run, first, last
  logical :: verified
  double precision :: seconds, norms(5)
  character(len=256) :: message

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)

  do run = 1, 2
    call npblu_create(solver, MPI_COMM_WORLD, ierr)
    call check(ierr, 'create')
    call npblu_set_class(solver, 'S', ierr)
    call check(ierr, 'set_class')
    call npblu_set_report(solver, .false., ierr)
    call npblu_set_option(solver, 'quiet', '', ierr)
    call npblu_run(solver, ierr)
    call check(ierr, 'run')
    call npblu_verified(solver, verified, ierr)
    call npblu_time(solver, seconds, ierr)
    call npblu_residual_norms(solver, norms, ierr)
    call npblu_columns(solver, first, last, ierr)
    if (.not. verified) error stop 'class S did not verify'
    if (abs(norms(1) - 1.6196343210976702d-02) > 1d-8 * 1.6196343210976702d-02) error stop 'wrong residual norm'
    if (last < first) error stop 'no columns owned'
    if (rank == 0) print '(a,i0,a,f8.4,a,es22.15)', 'modern driver: run ', run, ' verified in ', seconds, &
        ' s, xcr(1) = ', norms(1)
    call npblu_destroy(solver, ierr)
  end do

  ! An invalid class is an error code and a message, not an abort.
  call npblu_create(solver, MPI_COMM_WORLD, ierr)
  call npblu_set_class(solver, 'Q', ierr)
  if (ierr /= NPBLU_ERROR_ARGUMENT) error stop 'invalid class accepted'
  call npblu_error_message(solver, message)
  if (index(message, "unknown class 'Q'") == 0) error stop 'no message for the invalid class'
  call npblu_run(solver, ierr)
  if (ierr == NPBLU_OK) error stop 'ran without a problem'
  call npblu_time(solver, seconds, ierr)
  if (ierr /= NPBLU_ERROR_NO_RESULT) error stop 'a result without a run'
  if (rank == 0) print '(a,a)', 'modern driver: invalid class rejected: ', trim(message)
  call npblu_destroy(solver, ierr)

  call MPI_Finalize(ierr)

contains

  subroutine check(code, what)
    integer, intent(in) :: code
    character(len=*), intent(in) :: what
    character(len=256) :: text
    if (code /= NPBLU_OK) then
      call npblu_error_message(solver, text)
      print '(a,a,a,i0,a,a)', 'modern driver: ', what, ' failed with ', code, ': ', trim(text)
      error stop 1
    end if
  end subroutine

end program modern_driver
