! Fortran callers checkpoint and restart (module npblu_checkpoints): a class S
! run writing a checkpoint every 30 iterations, then a run continuing it (the
! class taken from the file) ends verified with the same residual norms; the
! same restart in steps resumes at iteration 30 of 50 and runs the other 20;
! checkpoint now without a run in steps is refused, with a default and an
! int64 ierr. Run on 1 or 2 ranks; error stop on failure.
program fortran_checkpoint
  use mpi
  use npblu
  use npblu_checkpoints
  use, intrinsic :: iso_fortran_env, only: int64
  implicit none
  type(npblu_solver) :: first, second, third
  integer :: done, total, ran
  integer :: ierr
  integer(int64) :: ierr8
  double precision :: before(5), after(5)
  logical :: verified
  character(len=200) :: message
  character(len=64) :: path
  integer :: ranks

  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierr)
  write (path, '(a,i0,a)') 'fortran_checkpoint_', ranks, '.h5'  ! one file per test: CTest runs them at once
  call npblu_create(first, MPI_COMM_WORLD, ierr)
  call npblu_set_class(first, 'S', ierr)
  call npblu_set_report(first, .false., ierr)
  call npblu_set_option(first, 'checkpoint', path, ierr)
  call npblu_set_option(first, 'checkpoint-every', '30', ierr)
  call npblu_run(first, ierr)
  if (ierr /= NPBLU_OK) error stop 'the checkpointed run failed'
  call npblu_residual_norms(first, before, ierr)

  call npblu_checkpoint_now(first, 'now.h5', ierr)
  if (ierr /= NPBLU_ERROR_RUN) error stop 'checkpoint now without a run in steps was not refused'
  call npblu_error_message(first, message)
  if (index(message, 'a run in steps must be started') == 0) error stop 'unclear refusal'
  call npblu_checkpoint_now(first, 'now.h5', ierr8)
  if (ierr8 /= int(NPBLU_ERROR_RUN, int64)) error stop 'int64 ierr: not refused'

  call npblu_create(second, MPI_COMM_WORLD, ierr)
  call npblu_set_report(second, .false., ierr)
  call npblu_set_option(second, 'restart', path, ierr)
  call npblu_run(second, ierr)
  if (ierr /= NPBLU_OK) error stop 'the restart failed'
  call npblu_verified(second, verified, ierr)
  call npblu_residual_norms(second, after, ierr)
  if (.not. verified) error stop 'the restart did not verify'
  if (any(after /= before)) error stop 'the restart ended with other norms'

  call npblu_create(third, MPI_COMM_WORLD, ierr)
  call npblu_set_report(third, .false., ierr)
  call npblu_set_option(third, 'restart', path, ierr)
  call npblu_start(third, ierr)
  if (ierr /= NPBLU_OK) error stop 'the restart in steps failed to start'
  call npblu_iterations_done(third, done, total, ierr)
  if (done /= 30 .or. total /= 50) error stop 'the restart in steps does not resume at iteration 30 of 50'
  call npblu_advance(third, 1000, ran, ierr)
  if (ierr /= NPBLU_OK .or. ran /= 20) error stop 'the restart in steps did not run the remaining 20 iterations'
  call npblu_finish(third, ierr)
  call npblu_residual_norms(third, after, ierr)
  if (any(after /= before)) error stop 'the restart in steps ended with other norms'
  call npblu_destroy(first, ierr)
  call npblu_destroy(second, ierr)
  call npblu_destroy(third, ierr)
  call MPI_Finalize(ierr)
  print '(a)', 'fortran checkpoint: restart from iteration 30 verified, the same norms'
end program fortran_checkpoint
