! type(npblu_solver)'s finalizer frees a forgotten handle without calling
! MPI: a solver going out of scope undestroyed on every rank, on one rank
! alone (a collective MPI_Comm_free there would hang), after an explicit
! npblu_destroy (nothing left to free), passed to npblu_create again, and
! deallocated after MPI_Finalize (where an MPI call would abort). Then MPI
! and the library still work. The handles released are counted
! (count_releases.c); under ASan a double free or a use after free fails too.
program fortran_finalizer
  use, intrinsic :: iso_c_binding, only: c_int
  use mpi
  use npblu
  implicit none
  interface
    integer(c_int) function releases_counted() bind(c, name="npblu_test_releases_counted")
      import :: c_int
    end function
  end interface
  integer :: ierr, rank, expected
  type(npblu_solver), allocatable :: survivor

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call forgotten(MPI_COMM_WORLD)
  if (rank == 0) call forgotten(MPI_COMM_SELF)      ! one rank alone
  call destroyed()
  call created_twice()
  call forgotten(MPI_COMM_WORLD)                    ! the library and MPI still work
  allocate (survivor)
  call npblu_create(survivor, MPI_COMM_WORLD, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
  deallocate (survivor)                             ! finalized after MPI_Finalize
  expected = merge(5, 4, rank == 0)  ! forgotten 2 + 1 on rank 0, created twice 1, the survivor 1
  if (releases_counted() /= expected) then
    print '(a,i0,a,i0,a,i0)', 'fortran_finalizer: rank ', rank, ' released ', releases_counted(), &
      ' handles, expected ', expected
    error stop 1
  end if
  if (rank == 0) print '(a,i0,a)', 'fortran_finalizer: passed (', expected, ' handles released on rank 0)'

contains

  ! A class S run whose solver is never destroyed.
  subroutine forgotten(comm)
    integer, intent(in) :: comm
    type(npblu_solver) :: lu
    logical :: verified
    integer :: ran
    call npblu_create(lu, comm, ierr)
    call npblu_set_class(lu, 'S', ierr)
    call npblu_set_report(lu, .false., ierr)
    call npblu_set_option(lu, 'quiet', '', ierr)
    call npblu_start(lu, ierr)
    call npblu_advance(lu, 5, ran, ierr)
    call npblu_run(lu, ierr)                          ! refused: a stepped run is open
    if (ierr /= NPBLU_ERROR_ORDER) error stop 'run during a stepped run'
    call npblu_advance(lu, 100, ran, ierr)
    call npblu_finish(lu, ierr)
    call npblu_verified(lu, verified, ierr)
    if (.not. verified) error stop 'class S did not verify'
  end subroutine

  subroutine destroyed()
    type(npblu_solver) :: lu
    call npblu_create(lu, MPI_COMM_WORLD, ierr)
    call npblu_destroy(lu, ierr)
    if (ierr /= NPBLU_OK) error stop 'destroy'
  end subroutine

  ! npblu_create's solver is intent(out): the first handle is finalized.
  subroutine created_twice()
    type(npblu_solver) :: lu
    call npblu_create(lu, MPI_COMM_WORLD, ierr)
    call npblu_create(lu, MPI_COMM_WORLD, ierr)
    call npblu_set_class(lu, 'S', ierr)
    if (ierr /= NPBLU_OK) error stop 'the second handle does not work'
    call npblu_destroy(lu, ierr)
  end subroutine

end program fortran_finalizer
