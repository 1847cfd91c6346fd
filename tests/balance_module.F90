! Module npblu_balance from a modern Fortran caller, compiled three ways by
! CTest: default integers with module mpi; default integers with mpi_f08
! (type(MPI_Comm) overload); -fdefault-integer-8 with mpi_f08 (the int64
! specifics; MPI's own integers are declared integer(int32) there, as such
! codes do). Checks: partition from weights, refused bad input (same status
! on every rank), a balancer fed by a code whose rank 1 is twice as slow
! moving columns, two arrays of different element types (a halo of one and
! none) migrated with ALLOCATE + migrate + MOVE_ALLOC, every owned column
! arriving bitwise; the balancer's bottleneck ratio against this test's;
! memory limits set, refused and removed. Run on 2 or more ranks; MPI_Abort
! on failure.
program balance_module
  use, intrinsic :: iso_fortran_env, only: int32, real64
#ifdef WITH_F08
  use mpi_f08
#else
  use mpi
#endif
  use npblu_balance
  implicit none
  integer, parameter :: nx = 6, ncols = 90, halo = 1
  integer(int32) :: rank, nranks, mpierr
  integer :: ierr, jfirst, jlast, it, decisions, changes, moved, i, j
  integer, allocatable :: first(:), last(:), widths(:), tag(:), tag_new(:)
  real(real64), allocatable :: u(:, :), u_new(:, :), cost(:)
  real(real64) :: compute, slowest, quality_before, quality_after
  logical :: changed
  character(len=256) :: message
  type(npblu_balancer) :: bal

  call MPI_Init(mpierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, mpierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, mpierr)
  if (rank == 0) print '(a,i0,a,i0,a)', 'balance_module: default integer of ', storage_size(ierr) / 8, &
                                         ' bytes, ', nranks, ' ranks'
#ifdef EXPECT_INTEGER_BYTES
  call check(storage_size(ierr) / 8 == EXPECT_INTEGER_BYTES, 'integer size not as compiled for')
#endif

  call check_placement()
  call check_refusals()
  call balance_and_migrate()
  call check_balanced_and_refusals_after()
  if (rank == 0) print '(a)', 'balance_module: PASS'
  call MPI_Finalize(mpierr)

contains

  ! The solver's placement from weights, and too many ranks refused.
  subroutine check_placement()
    allocate (first(nranks), last(nranks), cost(nranks), widths(nranks))
    cost = 1d0
    call npblu_partition_from_weights(ncols, [(merge(2d0, 1d0, i == 1), i = 1, nranks)], first, last, ierr)
    call check(ierr == NPBLU_OK .and. first(1) == 1 .and. last(nranks) == ncols, 'partition_from_weights')
    call check(all(first(2:) == last(:nranks - 1) + 1) .and. last(1) - first(1) > last(2) - first(2), &
               'partition_from_weights: stripes')
    call npblu_partition_from_weights(3, cost, first, last, ierr, message=message)
    call check(ierr == NPBLU_ERROR_ARGUMENT .and. index(message, 'too many ranks') > 0, 'too many ranks')

  end subroutine check_placement

  ! Bad widths (on rank 0 only) and every=0 refused on every rank.
  subroutine check_refusals()
    widths = ncols / nranks
    widths(nranks) = ncols - sum(widths(:nranks - 1)) + merge(1, 0, rank == 0)
    call npblu_balancer_create(bal, MPI_COMM_WORLD, ncols, ierr, widths=widths, message=message)
    call check(ierr == NPBLU_ERROR_ARGUMENT .and. len_trim(message) > 0, 'bad widths accepted')
    if (rank == 0) print '(a,a)', 'refused: ', trim(message)
    call npblu_balancer_create(bal, MPI_COMM_WORLD, ncols, ierr, every=0)
    call check(ierr == NPBLU_ERROR_ARGUMENT, 'every=0 accepted')
    ! Widths or weights of another length than the ranks (one rank's only): refused before they are
    ! read (the library once read past the array), naming the length.
    call npblu_balancer_create(bal, MPI_COMM_WORLD, ncols, ierr, widths=[ncols], message=message)
    call check(ierr == NPBLU_ERROR_ARGUMENT .and. index(message, 'widths holds 1 value ') > 0, &
               'one width for several ranks accepted: '//trim(message))
    if (rank == 1) then
      call npblu_balancer_create(bal, MPI_COMM_WORLD, ncols, ierr, weights=[cost, 1d0], message=message)
    else
      call npblu_balancer_create(bal, MPI_COMM_WORLD, ncols, ierr, weights=cost, message=message)
    end if
    call check(ierr == NPBLU_ERROR_ARGUMENT .and. index(message, 'weights holds') > 0, &
               'a weight too many on rank 1 accepted: '//trim(message))
#if EXPECT_INTEGER_BYTES == 8
    ! The int64 specifics: a value beyond a C int is refused, never cut to its
    ! low 32 bits (2**32 + 90 columns once became a balancer of 90).
    call npblu_balancer_create(bal, MPI_COMM_WORLD, 2_8**32 + ncols, ierr, message=message)
    call check(ierr == NPBLU_ERROR_ARGUMENT .and. index(message, 'beyond a C int') > 0, &
               'ncols = 2**32 + 90 accepted: '//trim(message))
    call npblu_balancer_create(bal, MPI_COMM_WORLD, ncols, ierr, every=2_8**32 + 1, message=message)
    call check(ierr == NPBLU_ERROR_ARGUMENT, 'every = 2**32 + 1 accepted')
#endif

  end subroutine check_refusals

  ! Rank 1 twice as slow: feed, and migrate two arrays whenever the stripes change.
  subroutine balance_and_migrate()
    ! The communicator: type(MPI_Comm) with mpi_f08, an integer handle with mpi.
    call npblu_balancer_create(bal, MPI_COMM_WORLD, ncols, ierr, every=2, core_share=.false., message=message)
    call check(ierr == NPBLU_OK, 'create: '//trim(message))
    call npblu_balancer_columns(bal, jfirst, jlast, ierr)
    allocate (u(0:nx + 1, jfirst - halo:jlast + halo), tag(jfirst:jlast))
    call fill(u, tag, jfirst, jlast)
    cost(2) = 2d0  ! rank 1 is twice as slow per column
    do it = 1, 60
      call current_widths(widths)
      compute = widths(rank + 1) * cost(rank + 1) * 1d-3
      slowest = maxval(widths * cost) * 1d-3
      call npblu_balancer_feed(bal, compute, slowest - compute, changed, ierr)
      call check(ierr == NPBLU_OK, 'feed')
      if (.not. changed) cycle
      call check_quality_of_step(widths)
      ! The handful of calls: new range, allocate, migrate, move_alloc.
      call npblu_balancer_columns(bal, jfirst, jlast, ierr)
      ! A new array whose last dimension does not hold the stripe and its halos: refused on every
      ! rank, nothing written (it once overran the heap).
      allocate (u_new(0:nx + 1, jfirst - halo:jlast + halo - 1))
      call npblu_balancer_migrate(bal, u, u_new, storage_size(u) / 8 * size(u, 1), halo, ierr)
      call npblu_balancer_error_message(bal, message)
      call check(ierr == NPBLU_ERROR_ARGUMENT .and. index(message, 'the new array stores') > 0, &
                 'a new array a column short accepted: '//trim(message))
      deallocate (u_new)
      allocate (u_new(0:nx + 1, jfirst - halo:jlast + halo), tag_new(jfirst:jlast))
      call npblu_balancer_migrate(bal, u, u_new, storage_size(u) / 8 * size(u, 1), halo, ierr)
      call check(ierr == NPBLU_OK, 'migrate u')
      call npblu_balancer_migrate(bal, tag, tag_new, storage_size(tag) / 8, 0, ierr)
      call check(ierr == NPBLU_OK, 'migrate tag')
      call move_alloc(u_new, u)
      call move_alloc(tag_new, tag)
      do j = jfirst, jlast
        call check(all(u(:, j) == [(value_of(i, j), i = 0, nx + 1)]) .and. tag(j) == j, 'column lost')
      end do
      call fill(u, tag, jfirst, jlast)  ! (the code's halo exchange)
    end do
  end subroutine balance_and_migrate

  ! A step's quality before and after it, the balancer's against this test's (the fed times are
  ! exact, so the balancer's estimated costs are the true ones): the stripes it left (`before`,
  ! fed on) and those it chose.
  subroutine check_quality_of_step(before)
    integer, intent(in) :: before(:)
    integer :: after(size(before))
    call npblu_balancer_last_quality(bal, quality_before, quality_after, ierr)
    call current_widths(after)
    if (rank == 0) print '(a,2f10.6,a,2f10.6)', 'step: bottleneck / best before and after, the balancer''s', &
      quality_before, quality_after, ', this test''s', maxval(before * cost) / best_bottleneck(cost), &
      maxval(after * cost) / best_bottleneck(cost)
    call check(ierr == NPBLU_OK .and. abs(quality_before - maxval(before * cost) / best_bottleneck(cost)) < 1d-9 &
               .and. abs(quality_after - maxval(after * cost) / best_bottleneck(cost)) < 1d-9, &
               'the balancer''s quality of a step is not the bottleneck ratio')
  end subroutine check_quality_of_step

  ! Direction and quality of the result; a bad halo refused; the integer handle under mpi_f08.
  subroutine check_balanced_and_refusals_after()
    call npblu_balancer_totals(bal, decisions, changes, moved, ierr)
    call current_widths(widths)
    if (rank == 0) print '(a,i0,a,i0,a,*(1x,i0))', 'decisions ', decisions, ', columns moved ', moved, &
                                                     ', widths', widths
    ! Direction and quality: the slow rank gave columns away, and the slowest stripe's time is within
    ! two of its columns of the best whole-column partition's (modelled times: no noise to excuse more).
    call check(decisions == 30 .and. moved > 0 .and. widths(2) < ncols / nranks, 'the balancer did not balance')
    if (rank == 0) print '(a,f8.1,a,f8.1)', 'bottleneck ', maxval(widths * cost), ', best ', best_bottleneck(cost)
    call check(maxval(widths * cost) <= best_bottleneck(cost) + 2 * maxval(cost), &
               'the balanced partition is far from the best')
    ! The balancer's own quality of today's stripes (the last decision's "after": the fed times are
    ! exact, so its estimated costs are the true ones) is the same ratio.
    call npblu_balancer_last_quality(bal, quality_before, quality_after, ierr)
    if (rank == 0) print '(a,f10.6,a,f10.6)', 'bottleneck / best, the balancer''s ', quality_after, &
                                              ', this test''s ', maxval(widths * cost) / best_bottleneck(cost)
    call check(ierr == NPBLU_OK .and. abs(quality_after - maxval(widths * cost) / best_bottleneck(cost)) < 1d-9, &
               'the balancer''s quality is not the bottleneck ratio')

    ! Memory limits: fewer columns than the balancer holds refused, the present widths accepted,
    ! an empty list removes them.
    call npblu_balancer_set_max_widths(bal, widths - 1, ierr)
    call npblu_balancer_error_message(bal, message)
    call check(ierr == NPBLU_ERROR_ARGUMENT .and. index(message, 'maximum widths') > 0, &
               'limits below the columns accepted: '//trim(message))
    call npblu_balancer_set_max_widths(bal, widths, ierr)
    call check(ierr == NPBLU_OK, 'limits at the present widths refused')
    call npblu_balancer_set_max_widths(bal, widths(:0), ierr)
    call check(ierr == NPBLU_OK, 'limits not removed')

    ! A bad halo is refused on every rank, nothing moved.
    call npblu_balancer_migrate(bal, u, u, 8, -1, ierr)
    call check(ierr == NPBLU_ERROR_ARGUMENT, 'halo -1 accepted')
    call npblu_balancer_error_message(bal, message)
    call check(len_trim(message) > 0, 'no message')
    ! A negative column_bytes is refused by its value (it once read "0 or below").
    call npblu_balancer_migrate(bal, u, u, -8, halo, ierr)
    call npblu_balancer_error_message(bal, message)
    call check(ierr == NPBLU_ERROR_ARGUMENT .and. index(message, 'column_bytes is -8') > 0, &
               'column_bytes -8 not named: '//trim(message))
    call npblu_balancer_destroy(bal, ierr)
    call check(ierr == NPBLU_OK, 'destroy')
#ifdef WITH_F08
    ! An mpi_f08 code may also pass the integer handle (of its default kind).
    call npblu_balancer_create(bal, int(MPI_COMM_WORLD%MPI_VAL), ncols, ierr, weights=cost)
    call check(ierr == NPBLU_OK, 'create with an integer handle')
    call npblu_balancer_destroy(bal, ierr)
#endif
  end subroutine check_balanced_and_refusals_after

  ! The smallest max_r width_r * cost_r over whole-column partitions of ncols (widths >= 1): the
  ! best bottleneck is one of the values w * cost_r, reachable iff the ranks can hold ncols within it.
  real(real64) function best_bottleneck(c)
    real(real64), intent(in) :: c(:)
    real(real64) :: t
    integer :: r, w
    best_bottleneck = huge(1d0)
    do r = 1, size(c)
      do w = 1, ncols
        t = w * c(r)
        if (t < best_bottleneck .and. all(floor(t / c + 1d-9) >= 1) .and. sum(floor(t / c + 1d-9)) >= ncols) &
          best_bottleneck = t
      end do
    end do
  end function

  real(real64) function value_of(i, j)
    integer, intent(in) :: i, j
    value_of = j * 1000d0 + i + 0.125d0
  end function

  subroutine fill(a, t, jf, jl)
    real(real64), intent(out) :: a(0:, jf - halo:)
    integer, intent(out) :: t(jf:)
    integer, intent(in) :: jf, jl
    do j = jf - halo, jl + halo
      a(:, j) = [(value_of(i, j), i = 0, nx + 1)]
    end do
    t = [(j, j = jf, jl)]
  end subroutine

  ! Every rank's current width, from every rank's range.
  subroutine current_widths(w)
    integer, intent(out) :: w(:)
    integer(int32) :: mine, every_width(size(w))
    integer :: jf, jl, status
    call npblu_balancer_columns(bal, jf, jl, status)
    mine = int(jl - jf + 1, int32)
    call MPI_Allgather(mine, 1_int32, MPI_INTEGER4, every_width, 1_int32, MPI_INTEGER4, MPI_COMM_WORLD, mpierr)
    w = every_width
  end subroutine

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (ok) return
    print '(a,i0,a,a)', 'balance_module: rank ', rank, ': FAIL: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1_int32, mpierr)
  end subroutine

end program balance_module
