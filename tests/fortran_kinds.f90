! Module npblu from a caller of either integer kind, with mpi_f08: built
! twice by the tests, with default integers and with -fdefault-integer-8
! (8-byte default INTEGER and LOGICAL), so that every call below resolves to
! the int32 or the int64 specifics. Runs class S twice, once created from
! mpi_f08's type(MPI_Comm) and once from its integer handle, stepped
! 1 + 19 + the rest with a copy out and back in of u between, and checks
! both verify with the field checksum of a plain npblu_run. The expected integer
! size in bytes is the first command argument (4 or 8): the build's kind is
! asserted, not just printed. Every generic of module npblu is called (so with
! 8-byte integers every int64 specific): time, Mop/s, the norms, the surface
! integral and the imbalance of the full run, current_residual_norms while
! stepping, and set_size(12,12,12,50,0.5), class S's problem as a custom size,
! which must end with class S's residual norms bit for bit.
program fortran_kinds
  use, intrinsic :: iso_fortran_env, only: int32, int64
  use mpi_f08, only: MPI_Init, MPI_Finalize, MPI_Comm_rank, MPI_COMM_WORLD
  use npblu
  use npblu_legacy, only: lurun
  implicit none
  type(npblu_solver) :: lu
  integer :: ierr, major, minor, patch, comm, expected_bytes
  character(len=8) :: argument
  double precision :: full_norms(5), custom_norms(5)
  integer(int32) :: rank
  integer(int64) :: ierr64
  character(len=32) :: full_digest, digest
  logical :: verified

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call get_command_argument(1, argument)
  read (argument, *) expected_bytes
  if (storage_size(ierr) /= 8 * expected_bytes .or. storage_size(verified) /= 8 * expected_bytes) &
    error stop 'the default integer or logical is not of the size this build asks for'
  call npblu_version(major, minor, patch)
  if (major < 0 .or. minor < 0 .or. patch < 0) error stop 'npblu_version'
  if (rank == 0) print '(a,i0,a,i0,a,i0,a,i0,a,i0)', 'fortran_kinds: integer kind ', kind(ierr), ', logical kind ', &
      kind(verified), ', npblu ', major, '.', minor
  call npblu_create(lu, MPI_COMM_WORLD, ierr)            ! type(MPI_Comm)
  call check(ierr, 'create (type(MPI_Comm))')
  call configure()
  call npblu_run(lu, ierr)
  call check(ierr, 'run')
  call npblu_field_checksum(lu, full_digest, ierr)
  call check(ierr, 'field_checksum')
  call results_of_full_run()
  call npblu_destroy(lu, ierr)
  call custom_size_run()

  comm = MPI_COMM_WORLD%MPI_VAL                          ! an integer handle, of the caller's kind
  call npblu_create(lu, comm, ierr)
  call check(ierr, 'create (integer)')
  call configure()
  call stepped_run()
  call npblu_verified(lu, verified, ierr)
  call npblu_field_checksum(lu, digest, ierr)
  if (.not. verified) error stop 'stepped class S did not verify'
  if (digest /= full_digest) error stop 'stepped u differs from npblu_run''s'
  call refusals()
  call npblu_destroy(lu, ierr)
  if (rank == 0) print '(a,a)', 'fortran_kinds: class S verified, stepped == full, checksum ', trim(digest)
  call MPI_Finalize()

contains

  ! Every result query of a finished run, each checked for a plausible value.
  subroutine results_of_full_run()
    double precision :: seconds, rate, surface, factor, errors(5)
    call npblu_time(lu, seconds, ierr)
    call check(ierr, 'time')
    call npblu_mops(lu, rate, ierr)
    call check(ierr, 'mops')
    call npblu_surface_integral(lu, surface, ierr)
    call check(ierr, 'surface_integral')
    call npblu_imbalance(lu, factor, ierr)
    call check(ierr, 'imbalance')
    call npblu_residual_norms(lu, full_norms, ierr)
    call check(ierr, 'residual_norms')
    call npblu_error_norms(lu, errors, ierr)
    call check(ierr, 'error_norms')
    if (.not. (seconds > 0 .and. rate > 0 .and. surface > 0 .and. factor >= 1)) error stop 'results'
    if (any(.not. (full_norms > 0)) .or. any(.not. (errors > 0))) error stop 'norms'
  end subroutine

  ! Class S's problem given as a size: class U, the same residual norms bit for bit.
  subroutine custom_size_run()
    call npblu_create(lu, MPI_COMM_WORLD, ierr)
    call check(ierr, 'create (custom size)')
    ! A size beyond C's int is refused whatever the caller's kind, never cut to
    ! its low 32 bits (2**32 + 12 would be class S's 12).
    call npblu_set_size(lu, 2_int64**32 + 12, 12_int64, 12_int64, 50_int64, 0.5d0, ierr64)
    if (ierr64 /= NPBLU_ERROR_ARGUMENT) error stop 'set_size(2**32 + 12, ...) accepted'
    call npblu_set_size(lu, 12, 12, 12, 50, 0.5d0, ierr)
    call check(ierr, 'set_size')
    call npblu_set_report(lu, .false., ierr)
    call npblu_run(lu, ierr)
    call check(ierr, 'run (custom size)')
    call npblu_residual_norms(lu, custom_norms, ierr)
    call npblu_verified(lu, verified, ierr)
    if (verified) error stop 'a custom size claimed verification'
    if (any(custom_norms /= full_norms)) error stop 'set_size(class S problem) gave other norms'
    call npblu_destroy(lu, ierr)
  end subroutine

  subroutine configure()
    call npblu_set_class(lu, 'S', ierr)
    call check(ierr, 'set_class')
    call npblu_set_report(lu, .false., ierr)
    call npblu_set_option(lu, 'quiet', '', ierr)
  end subroutine

  subroutine stepped_run()
    integer :: ran, done, total, nx, nz, jbegin, jend, first, last
    double precision, allocatable :: u(:, :, :, :)
    character(len=32) :: before, after
    double precision :: current(5)
    call npblu_start(lu, ierr)
    call check(ierr, 'start')
    call npblu_advance(lu, 1, ran, ierr)
    call npblu_advance(lu, 19, ran, ierr)
    call npblu_current_residual_norms(lu, current, ierr)
    call check(ierr, 'current_residual_norms')
    if (any(.not. (current > 0))) error stop 'current_residual_norms'
    call npblu_iterations_done(lu, done, total, ierr)
    if (done /= 20 .or. total /= 50) error stop 'iterations_done'
    call npblu_field_shape(lu, nx, nz, jbegin, jend, ierr)
    call npblu_columns(lu, first, last, ierr)
    if (nx /= 12 .or. nz /= 12 .or. first /= jbegin .or. last /= jend .or. jbegin < 2 .or. jend > 11) &
      error stop 'field_shape'
    allocate (u(5, nx, nz, jbegin:jend))
    call npblu_get_field(lu, u, ierr)
    call check(ierr, 'get_field')
    call npblu_field_checksum(lu, before, ierr)
    call npblu_set_field(lu, u, ierr)
    call check(ierr, 'set_field')
    call npblu_field_checksum(lu, after, ierr)
    if (before /= after) error stop 'u copied out and in changed'
    call npblu_advance(lu, 1000, ran, ierr)
    if (ran /= 30) error stop 'advance to the end'
    call npblu_finish(lu, ierr)
    call check(ierr, 'finish')
  end subroutine

  ! Out of order, a wrong array size, a status string: codes, not aborts.
  subroutine refusals()
    double precision :: small(5, 1, 1, 1)
    integer :: ran
    character(len=8) :: cut
    cut = 'unset'
    call npblu_field_checksum(lu, cut, ierr)  ! 16 digits do not fit 8: refused, not cut
    if (ierr /= NPBLU_ERROR_ARGUMENT) error stop 'a digest of 8 characters accepted'
    if (cut /= '') error stop 'a refused digest was written'
    call npblu_advance(lu, 1, ran, ierr)
    if (ierr /= NPBLU_ERROR_ORDER) error stop 'advance after finish accepted'
    if (npblu_status_string(ierr) /= 'call out of order') error stop 'status string'
    call npblu_get_field(lu, small, ierr)
    if (ierr /= NPBLU_ERROR_ARGUMENT) error stop 'a wrong field size accepted'
    call class_refusals()
    call outputs_on_error()
  end subroutine

  ! A class is one letter: 'Wrong' and '' are refused whole (never read as
  ! 'W'), by npblu_set_class and by LURUN, whose message names them.
  subroutine class_refusals()
    character(len=256) :: text
    double precision :: seconds
    integer :: iverif
    call npblu_set_class(lu, 'Wrong', ierr)
    call npblu_error_message(lu, text)
    ! The message names the call the caller made (it once named npblu_set_option).
    if (ierr /= NPBLU_ERROR_ARGUMENT .or. index(text, "npblu_set_class: --class: unknown class 'Wrong'") /= 1) &
      error stop 'set_class(Wrong) not refused by name'
    call npblu_set_class(lu, '', ierr)
    if (ierr /= NPBLU_ERROR_ARGUMENT) error stop 'an empty class accepted'
    call npblu_set_class(lu, 'S   ', ierr)  ! trailing blanks, as in a CHARACTER*4 variable
    call check(ierr, 'set_class with trailing blanks')
    call lurun('SX', int(MPI_COMM_WORLD%MPI_VAL), seconds, iverif, ierr)  ! prints "LURUN: ... 'SX' ..."
    if (ierr /= NPBLU_ERROR_ARGUMENT .or. iverif /= 0) error stop 'LURUN(SX) accepted'
    call lurun('', int(MPI_COMM_WORLD%MPI_VAL), seconds, iverif, ierr)
    if (ierr /= NPBLU_ERROR_ARGUMENT) error stop 'LURUN with an empty class accepted'
  end subroutine

  ! Before any run: the columns and the field's shape are refused, and
  ! their outputs are set (an empty range, zero extents), not left as they were.
  subroutine outputs_on_error()
    type(npblu_solver) :: fresh
    integer :: first, last, nx, nz
    call npblu_create(fresh, MPI_COMM_WORLD, ierr)
    call check(ierr, 'create (fresh)')
    first = 7
    last = 7
    call npblu_columns(fresh, first, last, ierr)
    if (ierr /= NPBLU_ERROR_NO_RESULT .or. first /= 0 .or. last /= -1) error stop 'columns before a run'
    nx = 7
    nz = 7
    call npblu_field_shape(fresh, nx, nz, first, last, ierr)
    if (ierr /= NPBLU_ERROR_ORDER .or. nx /= 0 .or. nz /= 0 .or. first /= 0 .or. last /= -1) &
      error stop 'field_shape before a run'
    call npblu_destroy(fresh, ierr)
  end subroutine

  subroutine check(code, what)
    integer, intent(in) :: code
    character(len=*), intent(in) :: what
    character(len=256) :: text
    if (code == NPBLU_OK) return
    call npblu_error_message(lu, text)
    print '(a,a,a,a,a,a)', 'fortran_kinds: ', what, ' failed: ', npblu_status_string(code), ': ', trim(text)
    error stop 1
  end subroutine

end program fortran_kinds
