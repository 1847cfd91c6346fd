! npblu: Fortran 2008 bindings (ISO_C_BINDING) for the NPB LU benchmark on
! columnwise stripes. Wraps the C API of npblu.h with Fortran types and
! character strings. Every procedure returns an error code in ierr
! (NPBLU_OK = 0); npblu_error_message gives the text of the last error.
module npblu
  use, intrinsic :: iso_c_binding
  implicit none
  private

  integer, parameter, public :: NPBLU_OK = 0, NPBLU_ERROR_ARGUMENT = 1, NPBLU_ERROR_RUN = 2, &
                                NPBLU_ERROR_NO_RESULT = 3

  type, public :: npblu_solver
    type(c_ptr) :: ptr = c_null_ptr
  end type npblu_solver

  public :: npblu_create, npblu_destroy, npblu_set_class, npblu_set_size, npblu_set_option, &
            npblu_set_report, npblu_run, npblu_time, npblu_mops, npblu_verified, npblu_residual_norms, &
            npblu_error_norms, npblu_surface_integral, npblu_imbalance, npblu_columns, npblu_error_message

  interface
    integer(c_int) function c_create_f(handle, comm) bind(c, name="npblu_create_f")
      import :: c_ptr, c_int
      type(c_ptr), intent(out) :: handle
      integer(c_int), value :: comm
    end function
    integer(c_int) function c_destroy(handle) bind(c, name="npblu_destroy")
      import :: c_ptr, c_int
      type(c_ptr), intent(inout) :: handle
    end function
    ! The letter goes as a one-byte integer: the same ABI as C's char, and
    ! free of the by-value character passing that compilers disagree on.
    integer(c_int) function c_set_class(handle, cls) bind(c, name="npblu_set_class")
      import :: c_ptr, c_int, c_signed_char
      type(c_ptr), value :: handle
      integer(c_signed_char), value :: cls
    end function
    integer(c_int) function c_set_size(handle, nx, ny, nz, iterations, dt) bind(c, name="npblu_set_size")
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: handle
      integer(c_int), value :: nx, ny, nz, iterations
      real(c_double), value :: dt
    end function
    integer(c_int) function c_set_option(handle, name, value) bind(c, name="npblu_set_option")
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: handle
      character(kind=c_char), dimension(*), intent(in) :: name, value
    end function
    integer(c_int) function c_set_report(handle, print) bind(c, name="npblu_set_report")
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int), value :: print
    end function
    integer(c_int) function c_run(handle) bind(c, name="npblu_run")
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
    end function
    integer(c_int) function c_time(handle, value) bind(c, name="npblu_time")
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: handle
      real(c_double), intent(out) :: value
    end function
    integer(c_int) function c_mops(handle, value) bind(c, name="npblu_mops")
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: handle
      real(c_double), intent(out) :: value
    end function
    integer(c_int) function c_surface_integral(handle, value) bind(c, name="npblu_surface_integral")
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: handle
      real(c_double), intent(out) :: value
    end function
    integer(c_int) function c_imbalance(handle, value) bind(c, name="npblu_imbalance")
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: handle
      real(c_double), intent(out) :: value
    end function
    integer(c_int) function c_verified(handle, value) bind(c, name="npblu_verified")
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int), intent(out) :: value
    end function
    integer(c_int) function c_residual_norms(handle, norms) bind(c, name="npblu_residual_norms")
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: handle
      real(c_double), intent(out) :: norms(5)
    end function
    integer(c_int) function c_error_norms(handle, norms) bind(c, name="npblu_error_norms")
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: handle
      real(c_double), intent(out) :: norms(5)
    end function
    integer(c_int) function c_columns(handle, first, last) bind(c, name="npblu_columns")
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int), intent(out) :: first, last
    end function
    integer(c_int) function c_copy_error_message(handle, buf, length) bind(c, name="npblu_copy_error_message")
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: handle
      character(kind=c_char), dimension(*), intent(out) :: buf
      integer(c_int), value :: length
    end function
  end interface

contains

  ! Creates a solver on a communicator (the Fortran integer handle, e.g. MPI_COMM_WORLD).
  subroutine npblu_create(solver, comm, ierr)
    type(npblu_solver), intent(out) :: solver
    integer, intent(in) :: comm
    integer, intent(out) :: ierr
    ierr = c_create_f(solver%ptr, int(comm, c_int))
  end subroutine

  subroutine npblu_destroy(solver, ierr)
    type(npblu_solver), intent(inout) :: solver
    integer, intent(out) :: ierr
    ierr = c_destroy(solver%ptr)
  end subroutine

  subroutine npblu_set_class(solver, cls, ierr)
    type(npblu_solver), intent(in) :: solver
    character(len=1), intent(in) :: cls
    integer, intent(out) :: ierr
    ierr = c_set_class(solver%ptr, int(ichar(cls), c_signed_char))
  end subroutine

  subroutine npblu_set_size(solver, nx, ny, nz, iterations, dt, ierr)
    type(npblu_solver), intent(in) :: solver
    integer, intent(in) :: nx, ny, nz, iterations
    double precision, intent(in) :: dt
    integer, intent(out) :: ierr
    ierr = c_set_size(solver%ptr, int(nx, c_int), int(ny, c_int), int(nz, c_int), int(iterations, c_int), &
                      real(dt, c_double))
  end subroutine

  ! Any option of the lu command line without its dashes, e.g. ("balance", "diffusive").
  subroutine npblu_set_option(solver, name, value, ierr)
    type(npblu_solver), intent(in) :: solver
    character(len=*), intent(in) :: name, value
    integer, intent(out) :: ierr
    ierr = c_set_option(solver%ptr, trim(name)//c_null_char, trim(value)//c_null_char)
  end subroutine

  subroutine npblu_set_report(solver, print, ierr)
    type(npblu_solver), intent(in) :: solver
    logical, intent(in) :: print
    integer, intent(out) :: ierr
    ierr = c_set_report(solver%ptr, merge(1_c_int, 0_c_int, print))
  end subroutine

  ! Collective over the solver's communicator.
  subroutine npblu_run(solver, ierr)
    type(npblu_solver), intent(in) :: solver
    integer, intent(out) :: ierr
    ierr = c_run(solver%ptr)
  end subroutine

  subroutine npblu_time(solver, seconds, ierr)
    type(npblu_solver), intent(in) :: solver
    double precision, intent(out) :: seconds
    integer, intent(out) :: ierr
    real(c_double) :: v
    ierr = c_time(solver%ptr, v)
    seconds = v
  end subroutine

  subroutine npblu_mops(solver, mops, ierr)
    type(npblu_solver), intent(in) :: solver
    double precision, intent(out) :: mops
    integer, intent(out) :: ierr
    real(c_double) :: v
    ierr = c_mops(solver%ptr, v)
    mops = v
  end subroutine

  subroutine npblu_surface_integral(solver, value, ierr)
    type(npblu_solver), intent(in) :: solver
    double precision, intent(out) :: value
    integer, intent(out) :: ierr
    real(c_double) :: v
    ierr = c_surface_integral(solver%ptr, v)
    value = v
  end subroutine

  subroutine npblu_imbalance(solver, factor, ierr)
    type(npblu_solver), intent(in) :: solver
    double precision, intent(out) :: factor
    integer, intent(out) :: ierr
    real(c_double) :: v
    ierr = c_imbalance(solver%ptr, v)
    factor = v
  end subroutine

  subroutine npblu_verified(solver, verified, ierr)
    type(npblu_solver), intent(in) :: solver
    logical, intent(out) :: verified
    integer, intent(out) :: ierr
    integer(c_int) :: v
    ierr = c_verified(solver%ptr, v)
    verified = (ierr == NPBLU_OK .and. v == 1)
  end subroutine

  subroutine npblu_residual_norms(solver, norms, ierr)
    type(npblu_solver), intent(in) :: solver
    double precision, intent(out) :: norms(5)
    integer, intent(out) :: ierr
    real(c_double) :: v(5)
    ierr = c_residual_norms(solver%ptr, v)
    norms = v
  end subroutine

  subroutine npblu_error_norms(solver, norms, ierr)
    type(npblu_solver), intent(in) :: solver
    double precision, intent(out) :: norms(5)
    integer, intent(out) :: ierr
    real(c_double) :: v(5)
    ierr = c_error_norms(solver%ptr, v)
    norms = v
  end subroutine

  ! This rank's final columns, as Fortran-style 1-based global j indices first..last.
  subroutine npblu_columns(solver, first, last, ierr)
    type(npblu_solver), intent(in) :: solver
    integer, intent(out) :: first, last
    integer, intent(out) :: ierr
    integer(c_int) :: b, e
    ierr = c_columns(solver%ptr, b, e)
    first = b + 1
    last = e
  end subroutine

  subroutine npblu_error_message(solver, message)
    type(npblu_solver), intent(in) :: solver
    character(len=*), intent(out) :: message
    character(kind=c_char) :: buf(len(message) + 1)
    integer :: i, ierr
    message = ' '
    ierr = c_copy_error_message(solver%ptr, buf, int(size(buf), c_int))
    do i = 1, len(message)
      if (buf(i) == c_null_char) exit
      message(i:i) = buf(i)
    end do
  end subroutine

end module npblu
