! Collective calls that disagree between ranks, from Fortran (issue 22): every rank gets the same
! refusal (status and message, naming the rank that differs), no hang (the test's timeout) and no
! abort; an invalid communicator gives a status. Then the handle goes on. The balancer too: one
! extra (deciding) feed on rank 0 against destroy on rank 1. Run on 2 ranks.
program fortran_disagree
  use mpi
  use npblu
  use npblu_balance
  implicit none
  type(npblu_solver) :: lu, bad
  type(npblu_balancer) :: bal
  integer :: ierr, rank, ran, status, failures, any_failure, i
  logical :: changed
  character(len=400) :: message

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  failures = 0

  call npblu_create(bad, 123456, status)               ! not a communicator: a status, not an abort
  call expect(status /= NPBLU_OK, 'npblu_create with an invalid communicator')
  call npblu_error_message(bad, message)               ! no handle: the failed create's message
  call expect(index(message, 'npblu_create: the communicator is not a valid MPI communicator') == 1, &
              'the failed create''s message')

  call npblu_create(lu, MPI_COMM_WORLD, ierr)
  call npblu_set_report(lu, .false., ierr)
  if (rank == 0) call npblu_set_class(lu, 'S', ierr)   ! a class on rank 0 only
  call npblu_start(lu, status)
  call npblu_error_message(lu, message)
  call same_refusal(status, message, 'rank 1 passed other arguments than rank 0')

  call npblu_set_class(lu, 'S', ierr)                  ! now agreed: it starts
  call npblu_start(lu, ierr)
  call expect(ierr == NPBLU_OK, 'start once the ranks agree')
  if (rank == 0) then
    call npblu_advance(lu, 5, ran, status)
  else
    call npblu_advance(lu, 3, ran, status)             ! 5 on rank 0, 3 on rank 1
  end if
  call npblu_error_message(lu, message)
  call same_refusal(status, message, 'rank 1 passed other arguments than rank 0')
  call expect(ran == 0, 'a refused advance ran iterations')

  call npblu_advance(lu, 2, ran, ierr)
  call expect(ierr == NPBLU_OK .and. ran == 2, 'the handle goes on after the refusals')
  call npblu_finish(lu, ierr)
  call npblu_destroy(lu, ierr)

  call npblu_balancer_create(bal, MPI_COMM_WORLD, 40, ierr, every=2, core_share=.false.)
  call expect(ierr == NPBLU_OK, 'balancer create')
  do i = 1, 3
    call npblu_balancer_feed(bal, 1d0, 0d0, changed, ierr)
  end do
  if (rank == 0) then
    call npblu_balancer_feed(bal, 1d0, 0d0, changed, status)   ! the 4th feed decides: collective
  else
    call npblu_balancer_destroy(bal, status)                    ! while rank 1 is done
  end if
  call npblu_balancer_error_message(bal, message)
  call same_refusal(status, message, 'rank 0 called npblu_balancer_feed, rank 1 called npblu_balancer_destroy')
  call npblu_balancer_feed(bal, 1d0, 0d0, changed, ierr)
  call expect(ierr == NPBLU_OK, 'the balancer goes on after the refusal')
  call npblu_balancer_destroy(bal, ierr)
  call expect(ierr == NPBLU_OK, 'balancer destroy after the refusal')
  call MPI_Allreduce(failures, any_failure, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
  if (any_failure /= 0) error stop 'fortran_disagree failed'
  if (rank == 0) print '(a)', ' fortran_disagree: every disagreement refused alike on every rank'

contains

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', ' rank ', rank, ' FAIL: ', what
      failures = failures + 1
    end if
  end subroutine

  ! The same nonzero status and the same message on every rank, naming what differs.
  subroutine same_refusal(status, message, needle)
    integer, intent(in) :: status
    character(len=*), intent(in) :: message, needle
    integer :: mine(2), low(2), high(2), i
    mine(1) = status
    mine(2) = 0
    do i = 1, len_trim(message)
      mine(2) = mod(mine(2) * 31 + ichar(message(i:i)), 1000003)
    end do
    call MPI_Allreduce(mine, low, 2, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr)
    call MPI_Allreduce(mine, high, 2, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
    call expect(status /= NPBLU_OK, 'a disagreeing call was not refused')
    call expect(low(1) == high(1) .and. low(2) == high(2), 'the ranks got different statuses or messages')
    call expect(index(message, needle) > 0, 'the message does not name what differs: '//trim(message))
    if (rank == 0) print '(a,i0,2a)', ' refused alike (status ', status, '): ', trim(message)
  end subroutine

end program fortran_disagree
