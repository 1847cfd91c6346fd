! NPBLU_BAL_*: the balancer of module npblu_balance behind plain external
! subroutines, for fixed-form Fortran 77 codes that cannot USE a module.
! The balancer handle is an INTEGER*8; every other integer is a default
! INTEGER of a build without -fdefault-integer-8 (4 bytes; see the README
! for callers built with it); times and imbalances are DOUBLE PRECISION.
! Columns are numbered 1..NCOLS, ranges JFIRST:JLAST inclusive. IERR: 0 or
! an npblu error code (NPBLU_BAL_ERRMSG gives the text).
!
!   CALL NPBLU_BAL_WEIGHTS(NCOLS, NRANKS, WEIGHT, MINW, JFIRST, JLAST, IERR)
!       not collective: the solver's placement from WEIGHT(NRANKS) into
!       JFIRST(NRANKS), JLAST(NRANKS); MINW <= 0: the default minimum width 2
!   CALL NPBLU_BAL_CREATE(IBAL, ICOMM, NCOLS, IWIDTH, NEVERY, MINW, IERR)
!       collective: a balancer over communicator ICOMM starting from widths
!       IWIDTH(1..ranks) (IWIDTH(1) <= 0: equal widths); a decision every
!       NEVERY feeds (<= 0: 5); MINW <= 0: minimum width 2. On failure rank 0
!       writes the reason to standard error
!   CALL NPBLU_BAL_FEED(IBAL, TCOMP, TWAIT, ICHANG, IERR)
!       this rank's seconds of one iteration computing and waiting in MPI;
!       collective every NEVERY calls; ICHANG = 1 when the columns moved
!   CALL NPBLU_BAL_RANGE(IBAL, JFIRST, JLAST, IERR)     current columns
!   CALL NPBLU_BAL_PREV(IBAL, JFIRST, JLAST, IERR)      columns before the last feed
!   CALL NPBLU_BAL_MIGRATE(IBAL, OLD, NEW, NELEM, IELSZ, IHALO, IERR)
!       collective: one array from the previous to the current columns;
!       a column is NELEM elements of IELSZ bytes, OLD and NEW are stored
!       on (previous resp. current) JFIRST-IHALO:JLAST+IHALO, column last
!   CALL NPBLU_BAL_LAST(IBAL, NMOVED, BEFORE, AFTER, IERR)  last decision
!   CALL NPBLU_BAL_QUALITY(IBAL, QBEFOR, QAFTER, IERR)
!       the last decision's bottleneck ratio before and after it (1: the
!       best whole-column ranges; 0 before any decision)
!   CALL NPBLU_BAL_TOTALS(IBAL, NDECIS, NCHANG, NMOVED, IERR)
!   CALL NPBLU_BAL_ERRMSG(IBAL, MSG)                     CHARACTER*(*) MSG
!   CALL NPBLU_BAL_DESTROY(IBAL, IERR)                   collective

! The handle as a balancer and back.
module npblu_balance_f77_handle
  use, intrinsic :: iso_c_binding, only: c_ptr
  use, intrinsic :: iso_fortran_env, only: int64
  use npblu_balance, only: npblu_balancer
  implicit none
  private
  public :: balancer_of, handle_of, comm_size_of
contains
  ! This rank and the rank count of icomm, or ranks 0 (and this rank of
  ! MPI_COMM_WORLD) where icomm is no communicator or MPI is not running: an
  ! error on a handle that is no communicator goes to MPI_COMM_WORLD's
  ! handler, which aborts the job unless it returns errors for the query.
  subroutine comm_size_of(icomm, rank, ranks)
    use mpi, only: MPI_Comm_rank, MPI_Comm_size, MPI_Comm_get_errhandler, MPI_Comm_set_errhandler, &
                   MPI_Errhandler_free, MPI_Initialized, MPI_Finalized, MPI_COMM_WORLD, MPI_COMM_SELF, &
                   MPI_ERRORS_RETURN, MPI_SUCCESS
    integer, intent(in) :: icomm
    integer, intent(out) :: rank, ranks
    integer :: world, self, status, ignore
    logical :: running, finalized
    rank = 0
    ranks = 0
    call MPI_Initialized(running, ignore)
    call MPI_Finalized(finalized, ignore)
    if (.not. running .or. finalized) return
    call MPI_Comm_get_errhandler(MPI_COMM_WORLD, world, ignore)
    call MPI_Comm_get_errhandler(MPI_COMM_SELF, self, ignore)
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ignore)
    call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN, ignore)
    call MPI_Comm_size(icomm, ranks, status)
    if (status == MPI_SUCCESS) call MPI_Comm_rank(icomm, rank, status)
    if (status /= MPI_SUCCESS) then
      ranks = 0
      call MPI_Comm_rank(MPI_COMM_WORLD, rank, ignore)
    end if
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, world, ignore)
    call MPI_Comm_set_errhandler(MPI_COMM_SELF, self, ignore)
    call MPI_Errhandler_free(world, ignore)
    call MPI_Errhandler_free(self, ignore)
  end subroutine

  type(npblu_balancer) function balancer_of(ibal) result(b)
    integer(int64), intent(in) :: ibal
    b%ptr = transfer(ibal, b%ptr)
  end function
  integer(int64) function handle_of(b) result(ibal)
    type(npblu_balancer), intent(in) :: b
    ibal = transfer(b%ptr, ibal)
  end function
end module npblu_balance_f77_handle

subroutine npblu_bal_weights(ncols, nranks, weight, minw, jfirst, jlast, ierr)
  use npblu_balance
  implicit none
  integer, intent(in) :: ncols, nranks, minw
  double precision, intent(in) :: weight(nranks)
  integer, intent(out) :: jfirst(nranks), jlast(nranks), ierr
  call npblu_partition_from_weights(ncols, weight, jfirst, jlast, ierr, min_width=merge(minw, 2, minw > 0))
end subroutine

subroutine npblu_bal_create(ibal, icomm, ncols, iwidth, nevery, minw, ierr)
  use, intrinsic :: iso_fortran_env, only: int64
  use npblu_balance
  use npblu_balance_f77_handle
  implicit none
  integer(int64), intent(out) :: ibal
  integer, intent(in) :: icomm, ncols, iwidth(*), nevery, minw
  integer, intent(out) :: ierr
  type(npblu_balancer) :: b
  character(len=512) :: message
  integer :: rank, ranks
  call comm_size_of(icomm, rank, ranks)
  ! (no communicator: the module's create refuses it, with its message)
  if (iwidth(1) > 0 .and. ranks > 0) then
    call npblu_balancer_create(b, icomm, ncols, ierr, widths=iwidth(1:ranks), every=merge(nevery, 5, nevery > 0), &
                               min_width=merge(minw, 2, minw > 0), message=message)
  else
    call npblu_balancer_create(b, icomm, ncols, ierr, every=merge(nevery, 5, nevery > 0), &
                               min_width=merge(minw, 2, minw > 0), message=message)
  end if
  ibal = handle_of(b)
  if (ierr /= NPBLU_OK .and. rank == 0) write (0, '(a,a)') 'NPBLU_BAL_CREATE: ', trim(message)
end subroutine

subroutine npblu_bal_feed(ibal, tcomp, twait, ichang, ierr)
  use, intrinsic :: iso_fortran_env, only: int64
  use npblu_balance
  use npblu_balance_f77_handle
  implicit none
  integer(int64), intent(in) :: ibal
  double precision, intent(in) :: tcomp, twait
  integer, intent(out) :: ichang, ierr
  logical :: changed
  call npblu_balancer_feed(balancer_of(ibal), tcomp, twait, changed, ierr)
  ichang = merge(1, 0, changed)
end subroutine

subroutine npblu_bal_range(ibal, jfirst, jlast, ierr)
  use, intrinsic :: iso_fortran_env, only: int64
  use npblu_balance
  use npblu_balance_f77_handle
  implicit none
  integer(int64), intent(in) :: ibal
  integer, intent(out) :: jfirst, jlast, ierr
  call npblu_balancer_columns(balancer_of(ibal), jfirst, jlast, ierr)
end subroutine

subroutine npblu_bal_prev(ibal, jfirst, jlast, ierr)
  use, intrinsic :: iso_fortran_env, only: int64
  use npblu_balance
  use npblu_balance_f77_handle
  implicit none
  integer(int64), intent(in) :: ibal
  integer, intent(out) :: jfirst, jlast, ierr
  call npblu_balancer_previous_columns(balancer_of(ibal), jfirst, jlast, ierr)
end subroutine

! OLD and NEW are declared as bytes: a legacy caller passes any array (by address).
subroutine npblu_bal_migrate(ibal, old, new, nelem, ielsz, ihalo, ierr)
  use, intrinsic :: iso_fortran_env, only: int8, int64
  use npblu_balance
  use npblu_balance_f77_handle
  implicit none
  integer(int64), intent(in) :: ibal
  integer(int8), intent(in) :: old(*)
  integer(int8), intent(inout) :: new(*)
  integer, intent(in) :: nelem, ielsz, ihalo
  integer, intent(out) :: ierr
  integer(int64) :: status
  call npblu_balancer_migrate(balancer_of(ibal), old, new, int(nelem, int64) * int(ielsz, int64), &
                              int(ihalo, int64), status)
  ierr = int(status)
end subroutine

subroutine npblu_bal_last(ibal, nmoved, before, after, ierr)
  use, intrinsic :: iso_fortran_env, only: int64
  use npblu_balance
  use npblu_balance_f77_handle
  implicit none
  integer(int64), intent(in) :: ibal
  integer, intent(out) :: nmoved, ierr
  double precision, intent(out) :: before, after
  call npblu_balancer_last_decision(balancer_of(ibal), nmoved, before, after, ierr)
end subroutine

subroutine npblu_bal_quality(ibal, qbefor, qafter, ierr)
  use, intrinsic :: iso_fortran_env, only: int64
  use npblu_balance
  use npblu_balance_f77_handle
  implicit none
  integer(int64), intent(in) :: ibal
  double precision, intent(out) :: qbefor, qafter
  integer, intent(out) :: ierr
  call npblu_balancer_last_quality(balancer_of(ibal), qbefor, qafter, ierr)
end subroutine

subroutine npblu_bal_totals(ibal, ndecis, nchang, nmoved, ierr)
  use, intrinsic :: iso_fortran_env, only: int64
  use npblu_balance
  use npblu_balance_f77_handle
  implicit none
  integer(int64), intent(in) :: ibal
  integer, intent(out) :: ndecis, nchang, nmoved, ierr
  call npblu_balancer_totals(balancer_of(ibal), ndecis, nchang, nmoved, ierr)
end subroutine

subroutine npblu_bal_errmsg(ibal, msg)
  use, intrinsic :: iso_fortran_env, only: int64
  use npblu_balance
  use npblu_balance_f77_handle
  implicit none
  integer(int64), intent(in) :: ibal
  character(len=*), intent(out) :: msg
  call npblu_balancer_error_message(balancer_of(ibal), msg)
end subroutine

subroutine npblu_bal_destroy(ibal, ierr)
  use, intrinsic :: iso_fortran_env, only: int64
  use npblu_balance
  use npblu_balance_f77_handle
  implicit none
  integer(int64), intent(inout) :: ibal
  integer, intent(out) :: ierr
  type(npblu_balancer) :: b
  b = balancer_of(ibal)
  call npblu_balancer_destroy(b, ierr)
  ibal = handle_of(b)
end subroutine
