! A program using both Fortran modules, npblu and npblu_balance, and naming
! their status codes: they are declared once (module npblu_status) and
! re-exported by both, so this compiles without an ambiguity error. Checks
! that the codes mean what each module's calls return: a bad balancer
! setting is NPBLU_ERROR_ARGUMENT with a message naming the setting (not
! lu's flag), an unknown solver option too, a result before a run
! NPBLU_ERROR_NO_RESULT, good calls NPBLU_OK. Run on 2 ranks; exit 1 on failure.
program fortran_status_modules
  use mpi
  use npblu
  use npblu_balance
  implicit none
  type(npblu_solver) :: solver
  type(npblu_balancer) :: balancer
  integer :: ierr, mpierr, rank, failures
  double precision :: seconds
  character(len=256) :: message

  call MPI_Init(mpierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, mpierr)
  failures = 0

  call check(NPBLU_OK == 0 .and. NPBLU_ERROR_ARGUMENT == 1 .and. NPBLU_ERROR_RUN == 2 .and. &
             NPBLU_ERROR_NO_RESULT == 3 .and. NPBLU_ERROR_ORDER == 4, 'the codes of npblu.h')

  call npblu_balancer_create(balancer, MPI_COMM_WORLD, 40, ierr, every=0, message=message)
  call check(ierr == NPBLU_ERROR_ARGUMENT, 'every=0: not NPBLU_ERROR_ARGUMENT')
  call check(index(message, 'every must be at least 1') > 0 .and. index(message, '--') == 0, &
             'every=0: the message does not name the setting: '//trim(message))
  if (rank == 0) print '(a,a)', 'every=0 refused: ', trim(message)
  call npblu_balancer_create(balancer, MPI_COMM_WORLD, 40, ierr, every=2, message=message)
  call check(ierr == NPBLU_OK, 'a good balancer: '//trim(message))
  call npblu_balancer_destroy(balancer, ierr)
  call check(ierr == NPBLU_OK, 'balancer destroy')

  call npblu_create(solver, MPI_COMM_WORLD, ierr)
  call check(ierr == NPBLU_OK, 'solver create')
  call npblu_set_option(solver, 'no-such-option', '1', ierr)
  call check(ierr == NPBLU_ERROR_ARGUMENT, 'an unknown option: not NPBLU_ERROR_ARGUMENT')
  call npblu_time(solver, seconds, ierr)
  call check(ierr == NPBLU_ERROR_NO_RESULT, 'a result before a run: not NPBLU_ERROR_NO_RESULT')
  call npblu_destroy(solver, ierr)
  call check(ierr == NPBLU_OK, 'solver destroy')

  call MPI_Allreduce(MPI_IN_PLACE, failures, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, mpierr)
  if (rank == 0 .and. failures == 0) print '(a)', 'fortran_status_modules: passed'
  call MPI_Finalize(mpierr)
  if (failures /= 0) error stop 1

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      write (0, '(a,i0,a,a)') 'rank ', rank, ' FAIL: ', what
      failures = failures + 1
    end if
  end subroutine

end program fortran_status_modules
