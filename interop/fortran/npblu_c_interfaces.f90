! npblu_c_interfaces: the C API of npblu.h as seen from Fortran (internal to
! the npblu module: callers USE npblu).
module npblu_c_interfaces
  use, intrinsic :: iso_c_binding
  implicit none
  public

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
    ! The class as a NUL-terminated string (npblu_set_class_fn): free of the
    ! by-value character passing that compilers disagree on, and a string
    ! that is no class is refused whole, by name.
    integer(c_int) function c_set_class_fn(handle, cls) bind(c, name="npblu_set_class_fn")
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: handle
      character(kind=c_char), intent(in) :: cls(*)
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
    integer(c_int) function c_release(handle) bind(c, name="npblu_release")
      import :: c_ptr, c_int
      type(c_ptr), intent(inout) :: handle
    end function
    integer(c_int) function c_start(handle) bind(c, name="npblu_start")
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
    end function
    integer(c_int) function c_advance(handle, iterations, ran) bind(c, name="npblu_advance")
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int), value :: iterations
      integer(c_int), intent(out) :: ran
    end function
    integer(c_int) function c_iterations_done(handle, done, total) bind(c, name="npblu_iterations_done")
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int), intent(out) :: done, total
    end function
    integer(c_int) function c_current_residual_norms(handle, norms) bind(c, name="npblu_current_residual_norms")
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: handle
      real(c_double), intent(out) :: norms(5)
    end function
    integer(c_int) function c_finish(handle) bind(c, name="npblu_finish")
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
    end function
    integer(c_int) function c_grid(handle, nx, ny, nz) bind(c, name="npblu_grid")
      import :: c_ptr, c_int
      type(c_ptr), value :: handle
      integer(c_int), intent(out) :: nx, ny, nz
    end function
    integer(c_int) function c_get_field(handle, u, count) bind(c, name="npblu_get_field")
      import :: c_ptr, c_int, c_double, c_int64_t
      type(c_ptr), value :: handle
      real(c_double), intent(out) :: u(*)
      integer(c_int64_t), value :: count
    end function
    integer(c_int) function c_set_field(handle, u, count) bind(c, name="npblu_set_field")
      import :: c_ptr, c_int, c_double, c_int64_t
      type(c_ptr), value :: handle
      real(c_double), intent(in) :: u(*)
      integer(c_int64_t), value :: count
    end function
    integer(c_int) function c_field_checksum(handle, buf, length) bind(c, name="npblu_field_checksum")
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: handle
      character(kind=c_char), dimension(*), intent(out) :: buf
      integer(c_int), value :: length
    end function
    type(c_ptr) function c_status_string(status) bind(c, name="npblu_status_string")
      import :: c_ptr, c_int
      integer(c_int), value :: status
    end function
    integer(c_int) function c_isa(buf, length) bind(c, name="npblu_isa")
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(out) :: buf
      integer(c_int), value :: length
    end function
    integer(c_int) function c_version(major, minor, patch) bind(c, name="npblu_version")
      import :: c_int
      integer(c_int), intent(out) :: major, minor, patch
    end function
  end interface

contains

  ! A NUL-terminated C string as a Fortran string.
  function c_string_to_fortran(buf) result(text)
    character(kind=c_char), intent(in) :: buf(*)
    character(len=:), allocatable :: text
    integer :: n, i
    n = 0
    do while (buf(n + 1) /= c_null_char)
      n = n + 1
    end do
    allocate (character(len=n) :: text)
    do i = 1, n
      text(i:i) = buf(i)
    end do
  end function

end module npblu_c_interfaces
