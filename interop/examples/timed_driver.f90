! A Fortran driver timing the library: runs the NPB class given as its first
! argument (default S) once through module npblu, and prints on rank 0 one
! line a script can read (runs/bench_speed.py, tests/isa_check.py):
!   timed_driver: class=W isa=v4 verified=T seconds=1.234 checksum=0123456789abcdef
! Exits 1 when the run fails or does not verify, 2 when NPBLU_ISA is refused.
program timed_driver
  use mpi
  use npblu
  implicit none
  type(npblu_solver) :: solver
  integer :: ierr, rank
  logical :: verified
  double precision :: seconds
  character(len=8) :: arg
  character(len=400) :: isa_name
  character(len=32) :: digest
  character(len=256) :: message

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  arg = 'S'
  if (command_argument_count() >= 1) call get_command_argument(1, arg)
  call npblu_isa(isa_name, ierr)
  if (ierr /= NPBLU_OK) then
    if (rank == 0) print '(a,a)', 'timed_driver: error: ', trim(isa_name)
    call MPI_Finalize(ierr)
    stop 2
  end if
  call npblu_create(solver, MPI_COMM_WORLD, ierr)
  call npblu_set_class(solver, arg(1:1), ierr)
  if (ierr == NPBLU_OK) call npblu_set_report(solver, .false., ierr)
  if (ierr == NPBLU_OK) call npblu_set_option(solver, 'quiet', '', ierr)
  if (ierr == NPBLU_OK) call npblu_run(solver, ierr)
  if (ierr == NPBLU_OK) call npblu_verified(solver, verified, ierr)
  if (ierr == NPBLU_OK) call npblu_time(solver, seconds, ierr)
  if (ierr == NPBLU_OK) call npblu_field_checksum(solver, digest, ierr)
  if (ierr /= NPBLU_OK) then
    call npblu_error_message(solver, message)
    if (rank == 0) print '(a,i0,a,a)', 'timed_driver: error ', ierr, ': ', trim(message)
    error stop 1
  end if
  if (rank == 0) print '(a,a,a,a,a,l1,a,f0.6,a,a)', 'timed_driver: class=', arg(1:1), ' isa=', trim(isa_name), &
      ' verified=', verified, ' seconds=', seconds, ' checksum=', trim(digest)
  call npblu_destroy(solver, ierr)
  call MPI_Finalize(ierr)
  if (.not. verified) error stop 1
end program timed_driver
