! LURUN: the benchmark behind one plain external subroutine, for legacy
! Fortran 77 drivers that cannot USE a module:
!
!       CALL LURUN(CLS, ICOMM, TIME, IVERIF, IERR)
!
! CLS: class letter; ICOMM: communicator (e.g. MPI_COMM_WORLD); TIME: seconds;
! IVERIF: 1 verified, 0 not; IERR: 0 or an npblu error code (the message
! goes to standard error on rank 0). A caller whose default INTEGER is 8
! bytes calls LURUN8 (below), or USEs NPBLU_LEGACY (npblu_legacy.f90).
subroutine lurun(cls, icomm, time, iverif, ierr)
  use mpi, only: MPI_Comm_rank, MPI_COMM_WORLD
  use npblu
  implicit none
  character(len=*), intent(in) :: cls
  integer, intent(in) :: icomm
  double precision, intent(out) :: time
  integer, intent(out) :: iverif, ierr
  type(npblu_solver) :: solver
  logical :: verified
  character(len=512) :: message
  integer :: ignore, rank

  time = 0d0
  iverif = 0
  call npblu_create(solver, icomm, ierr)
  if (ierr /= NPBLU_OK) then
    ! No handle: the failed create's message (npblu_error_message of the null solver), said here by rank 0
    ! of MPI_COMM_WORLD (ICOMM may be no communicator).
    call npblu_error_message(solver, message)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ignore)
    if (rank == 0) write (0, '(a,i0,a,a)') 'LURUN: ICOMM ', icomm, ': ', trim(message)
    return
  end if
  call npblu_set_report(solver, .false., ierr)
  call npblu_set_option(solver, 'quiet', '', ierr)
  call npblu_set_class(solver, cls, ierr)  ! one letter; 'SX' or '' refused with a message
  if (ierr == NPBLU_OK) call npblu_run(solver, ierr)
  if (ierr == NPBLU_OK) then
    call npblu_time(solver, time, ierr)
    call npblu_verified(solver, verified, ierr)
    if (verified) iverif = 1
  else
    call npblu_error_message(solver, message)
    ! The caller called LURUN: the C call that refused, which the message names first, is LURUN's own.
    if (index(message, 'npblu_') == 1 .and. index(message, ': ') > 0) message = message(index(message, ': ') + 2:)
    call MPI_Comm_rank(icomm, rank, ignore)
    if (rank == 0) write (0, '(a,a)') 'LURUN: ', trim(message)
  end if
  call npblu_destroy(solver, ignore)
end subroutine lurun

! LURUN8: LURUN for callers whose default INTEGER is 8 bytes (compiled with
! -fdefault-integer-8 or -i8): ICOMM, IVERIF and IERR are INTEGER*8. Such a
! caller calling LURUN itself would pass 8-byte integers where 4-byte ones
! are read, silently. USE NPBLU_LEGACY picks the right one at compile time.
subroutine lurun8(cls, icomm, time, iverif, ierr)
  use, intrinsic :: iso_fortran_env, only: int32, int64
  implicit none
  character(len=*), intent(in) :: cls
  integer(int64), intent(in) :: icomm
  double precision, intent(out) :: time
  integer(int64), intent(out) :: iverif, ierr
  integer(int32) :: verified, status
  interface
    subroutine lurun(cls, icomm, time, iverif, ierr)
      import :: int32
      character(len=*), intent(in) :: cls
      integer(int32), intent(in) :: icomm
      double precision, intent(out) :: time
      integer(int32), intent(out) :: iverif, ierr
    end subroutine
  end interface
  call lurun(cls, int(icomm, int32), time, verified, status)
  iverif = verified
  ierr = status
end subroutine lurun8
