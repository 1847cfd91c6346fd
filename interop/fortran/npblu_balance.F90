! npblu_balance: the solver's partitioning, run-time balancer and column
! migration on a Fortran program's own column-striped arrays (ISO_C_BINDING
! over npblu_balance.h).
!
! Columns are numbered 1..ncols; a rank owns jfirst:jlast (1-based,
! inclusive). Every procedure returns a status in ierr (NPBLU_OK = 0, the
! codes of module npblu_status, which this module and module npblu both
! re-export); npblu_balancer_error_message gives the text.
!
! Integer kinds: every procedure taking integers is generic over
! integer(int32) and integer(int64) arguments (one specific each, built from
! the one body npblu_balance_body.inc), so the module serves callers built
! with default integers and with -fdefault-integer-8 alike; `changed` is a
! logical of the same size as those integers (the default logical of either
! caller). The communicator is an integer handle (mpif.h, module mpi) or,
! where the MPI has module mpi_f08, a type(MPI_Comm).
module npblu_balance
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int32, int64
#ifdef NPBLU_HAVE_MPI_F08
  use mpi_f08, only: MPI_Comm
#endif
  use npblu_status
  implicit none
  private

  ! The status codes (module npblu_status, shared with module npblu): a
  ! program using both modules names NPBLU_OK without ambiguity.
  public :: NPBLU_OK, NPBLU_ERROR_ARGUMENT, NPBLU_ERROR_RUN, NPBLU_ERROR_NO_RESULT, NPBLU_ERROR_ORDER

  !> A balancer: create with npblu_balancer_create, free (collectively) with npblu_balancer_destroy.
  type, public :: npblu_balancer
    type(c_ptr) :: ptr = c_null_ptr
  end type npblu_balancer

  ! npblu_balance_settings of npblu_balance.h.
  type, bind(c) :: c_settings
    integer(c_int) :: every
    real(c_double) :: threshold, damping
    integer(c_int) :: min_width, persistence, core_share
  end type c_settings

  public :: npblu_partition_from_weights, npblu_balancer_create, npblu_balancer_destroy, npblu_balancer_feed, &
            npblu_balancer_columns, npblu_balancer_previous_columns, npblu_balancer_set_widths, &
            npblu_balancer_set_max_widths, npblu_balancer_last_decision, npblu_balancer_last_quality, &
            npblu_balancer_totals, npblu_balancer_migrate, npblu_balancer_error_message

  interface npblu_partition_from_weights
    module procedure partition_from_weights_i4, partition_from_weights_i8
  end interface
  interface npblu_balancer_create
    module procedure create_i4, create_i8
#ifdef NPBLU_HAVE_MPI_F08
    module procedure create_f08_i4, create_f08_i8
#endif
  end interface
  interface npblu_balancer_destroy
    module procedure destroy_i4, destroy_i8
  end interface
  interface npblu_balancer_feed
    module procedure feed_i4, feed_i8
  end interface
  interface npblu_balancer_columns
    module procedure columns_i4, columns_i8
  end interface
  interface npblu_balancer_previous_columns
    module procedure previous_columns_i4, previous_columns_i8
  end interface
  interface npblu_balancer_set_widths
    module procedure set_widths_i4, set_widths_i8
  end interface
  interface npblu_balancer_set_max_widths
    module procedure set_max_widths_i4, set_max_widths_i8
  end interface
  interface npblu_balancer_last_decision
    module procedure last_decision_i4, last_decision_i8
  end interface
  interface npblu_balancer_last_quality
    module procedure last_quality_i4, last_quality_i8
  end interface
  interface npblu_balancer_totals
    module procedure totals_i4, totals_i8
  end interface
  interface npblu_balancer_migrate
    module procedure migrate_i4, migrate_i8
  end interface

  interface
    integer(c_int) function c_settings_default(s) bind(c, name="npblu_balance_settings_default")
      import :: c_int, c_settings
      type(c_settings), intent(out) :: s
    end function
    integer(c_int) function c_partition_from_weights(columns, ranks, weights, min_width, cuts, message, length) &
        bind(c, name="npblu_partition_from_weights")
      import :: c_int, c_double, c_char
      integer(c_int), value :: columns, ranks, min_width, length
      real(c_double), intent(in) :: weights(*)
      integer(c_int), intent(out) :: cuts(*)
      character(kind=c_char), intent(out) :: message(*)
    end function
    integer(c_int) function c_create_fn(handle, comm, columns, widths, nwidths, weights, nweights, settings, &
                                        message, length) bind(c, name="npblu_balancer_create_fn")
      import :: c_ptr, c_int, c_char, c_settings
      type(c_ptr), intent(out) :: handle
      integer(c_int), value :: comm, columns, nwidths, nweights, length
      type(c_ptr), value :: widths, weights
      type(c_settings), intent(in) :: settings
      character(kind=c_char), intent(out) :: message(*)
    end function
    integer(c_int) function c_destroy(handle) bind(c, name="npblu_balancer_destroy")
      import :: c_ptr, c_int
      type(c_ptr), intent(inout) :: handle
    end function
    integer(c_int) function c_feed(handle, compute, wait, changed) bind(c, name="npblu_balancer_feed")
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: handle
      real(c_double), value :: compute, wait
      integer(c_int), intent(out) :: changed
    end function
    integer(c_int) function c_columns(handle, begin, end) bind(c, name="npblu_balancer_columns")
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int), intent(out) :: begin, end
    end function
    integer(c_int) function c_previous_columns(handle, begin, end) bind(c, name="npblu_balancer_previous_columns")
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int), intent(out) :: begin, end
    end function
    integer(c_int) function c_ranks(handle, ranks) bind(c, name="npblu_balancer_ranks")
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int), intent(out) :: ranks
    end function
    integer(c_int) function c_set_widths(handle, widths, length) bind(c, name="npblu_balancer_set_widths_fn")
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int), intent(in) :: widths(*)
      integer(c_int), value :: length
    end function
    integer(c_int) function c_set_max_widths(handle, max_widths, length) &
        bind(c, name="npblu_balancer_set_max_widths_fn")
      import :: c_ptr, c_int
      type(c_ptr), value :: handle, max_widths  ! max_widths: c_null_ptr removes the limits
      integer(c_int), value :: length
    end function
    integer(c_int) function c_last_decision(handle, moved, moves, before, after) &
        bind(c, name="npblu_balancer_last_decision")
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: handle
      integer(c_int), intent(out) :: moved, moves(*)
      real(c_double), intent(out) :: before, after
    end function
    integer(c_int) function c_last_quality(handle, before, after) bind(c, name="npblu_balancer_last_quality")
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: handle
      real(c_double), intent(out) :: before, after
    end function
    integer(c_int) function c_totals(handle, decisions, changes, moved) bind(c, name="npblu_balancer_totals")
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int), intent(out) :: decisions, changes, moved
    end function
    ! One array: the address of its first element (assumed-size, any type), and
    ! the columns it stores (its last dimension; -1: not known) before and after.
    integer(c_int) function c_migrate_one(handle, old_array, new_array, column_bytes, halo, old_columns, &
                                          new_columns) bind(c, name="npblu_balancer_migrate_fn")
      import :: c_ptr, c_int, c_size_t, c_long_long
      type(c_ptr), value :: handle, old_array, new_array
      integer(c_size_t), value :: column_bytes
      integer(c_int), value :: halo
      integer(c_long_long), value :: old_columns, new_columns
    end function
    integer(c_int) function c_copy_error_message(handle, buf, length) &
        bind(c, name="npblu_balancer_copy_error_message")
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: handle
      character(kind=c_char), intent(out) :: buf(*)
      integer(c_int), value :: length
    end function
  end interface

contains

  ! The message of the last error on this balancer ("" if none).
  subroutine npblu_balancer_error_message(balancer, message)
    type(npblu_balancer), intent(in) :: balancer
    character(len=*), intent(out) :: message
    character(kind=c_char) :: buf(len(message) + 1)
    integer(c_int) :: status
    status = c_copy_error_message(balancer%ptr, buf, int(size(buf), c_int))
    call from_c_string(buf, message)
  end subroutine

  subroutine from_c_string(buf, text)
    character(kind=c_char), intent(in) :: buf(:)
    character(len=*), intent(out) :: text
    integer :: i
    text = ' '
    do i = 1, min(len(text), size(buf))
      if (buf(i) == c_null_char) exit
      text(i:i) = buf(i)
    end do
  end subroutine

#include "c_int_argument.inc"

  ! The library's default settings.
  type(c_settings) function default_settings() result(s)
    integer(c_int) :: status
    status = c_settings_default(s)
  end function

  ! Collective: create on a Fortran communicator handle, the kind-independent core.
  integer function create_core(balancer, comm, columns, widths, weights, s, message) result(ierr)
    type(npblu_balancer), intent(out) :: balancer
    integer(c_int), intent(in) :: comm, columns
    integer(c_int), target, intent(in), optional :: widths(:)
    real(c_double), target, intent(in), optional :: weights(:)
    type(c_settings), intent(in) :: s
    character(len=*), intent(out), optional :: message
    character(kind=c_char) :: buf(1024)
    type(c_ptr) :: pw, pq
    integer(c_int), target :: nw, nq
    pw = c_null_ptr
    pq = c_null_ptr
    nw = -1
    nq = -1
    ! Their lengths go along: the library refuses (agreed) any but one value a rank, before reading them.
    if (present(widths)) then
      nw = int(size(widths), c_int)
      if (nw > 0) pw = c_loc(widths)
      if (nw == 0) pw = c_loc(nq)  ! an empty array: any address, refused by its length
    end if
    if (present(weights)) then
      nq = int(size(weights), c_int)
      if (nq > 0) pq = c_loc(weights)
      if (nq == 0) pq = c_loc(nw)
    end if
    buf(1) = c_null_char
    ierr = c_create_fn(balancer%ptr, comm, columns, pw, nw, pq, nq, s, buf, int(size(buf), c_int))
    if (present(message)) call from_c_string(buf, message)
  end function

  ! A one-based inclusive range from a zero-based half-open one.
  subroutine from_c_range(status, begin, end, jfirst, jlast)
    integer(c_int), intent(in) :: status, begin, end
    integer(int64), intent(out) :: jfirst, jlast
    jfirst = 0
    jlast = -1
    if (status /= NPBLU_OK) return
    jfirst = int(begin, int64) + 1
    jlast = int(end, int64)
  end subroutine

  ! The columns an array stores: its last dimension (the layout MIGRATE
  ! documents); -1 for an array of rank 0 or 1, whose columns are not known.
  integer(int64) function stored_columns(array) result(n)
    type(*), dimension(..), intent(in) :: array
    n = -1
    if (rank(array) >= 2) n = size(array, rank(array), kind=int64)
  end function

  integer(c_int) function migrate_core(balancer, old_address, new_address, column_bytes, halo, old_columns, &
                                       new_columns) result(ierr)
    type(npblu_balancer), intent(in) :: balancer
    type(c_ptr), intent(in) :: old_address, new_address
    integer(int64), intent(in) :: column_bytes, halo, old_columns, new_columns
    integer(c_size_t) :: bytes
    ! Out-of-range values become values the library refuses (a halo beyond a
    ! C int clamped to it), on every rank alike; so do arrays whose last
    ! dimension does not hold the stripe and its halos. A negative column_bytes
    ! arrives as its two's complement, beyond any size a Fortran integer can
    ! give, which the library names by its value.
    bytes = int(column_bytes, c_size_t)
    ierr = c_migrate_one(balancer%ptr, old_address, new_address, bytes, &
                         int(max(-int(huge(1_c_int), int64), min(halo, int(huge(1_c_int), int64))), c_int), &
                         int(old_columns, c_long_long), int(new_columns, c_long_long))
  end function

#define IK int32
#define PARTITION_FROM_WEIGHTS partition_from_weights_i4
#define CREATE create_i4
#define CREATE_F08 create_f08_i4
#define DESTROY destroy_i4
#define FEED feed_i4
#define COLUMNS columns_i4
#define PREVIOUS_COLUMNS previous_columns_i4
#define SET_WIDTHS set_widths_i4
#define SET_MAX_WIDTHS set_max_widths_i4
#define LAST_DECISION last_decision_i4
#define LAST_QUALITY last_quality_i4
#define TOTALS totals_i4
#define MIGRATE migrate_i4
#include "npblu_balance_body.inc"
#undef IK
#undef PARTITION_FROM_WEIGHTS
#undef CREATE
#undef CREATE_F08
#undef DESTROY
#undef FEED
#undef COLUMNS
#undef PREVIOUS_COLUMNS
#undef SET_WIDTHS
#undef SET_MAX_WIDTHS
#undef LAST_DECISION
#undef LAST_QUALITY
#undef TOTALS
#undef MIGRATE

#define IK int64
#define PARTITION_FROM_WEIGHTS partition_from_weights_i8
#define CREATE create_i8
#define CREATE_F08 create_f08_i8
#define DESTROY destroy_i8
#define FEED feed_i8
#define COLUMNS columns_i8
#define PREVIOUS_COLUMNS previous_columns_i8
#define SET_WIDTHS set_widths_i8
#define SET_MAX_WIDTHS set_max_widths_i8
#define LAST_DECISION last_decision_i8
#define LAST_QUALITY last_quality_i8
#define TOTALS totals_i8
#define MIGRATE migrate_i8
#include "npblu_balance_body.inc"

end module npblu_balance
