! npblu_legacy: an explicit interface for the F77 entry points, for
! fixed-form callers. With
!       USE NPBLU_LEGACY
! after the PROGRAM or SUBROUTINE line, CALL LURUN(...) is generic: it calls
! LURUN with default 4-byte integers and LURUN8 with 8-byte ones (a caller
! compiled with -fdefault-integer-8 or -i8), and any other argument type is a
! compile-time error instead of silent corruption.
module npblu_legacy
  implicit none
  private
  public :: lurun, lurun8

  interface lurun
    subroutine lurun(cls, icomm, time, iverif, ierr)
      use, intrinsic :: iso_fortran_env, only: int32
      character(len=*), intent(in) :: cls
      integer(int32), intent(in) :: icomm
      double precision, intent(out) :: time
      integer(int32), intent(out) :: iverif, ierr
    end subroutine
    subroutine lurun8(cls, icomm, time, iverif, ierr)
      use, intrinsic :: iso_fortran_env, only: int64
      character(len=*), intent(in) :: cls
      integer(int64), intent(in) :: icomm
      double precision, intent(out) :: time
      integer(int64), intent(out) :: iverif, ierr
    end subroutine
  end interface
end module npblu_legacy
