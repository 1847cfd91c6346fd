! Stepping the solver from Fortran: set up, advance 10 iterations at a time
! while watching the residual, look at this rank's columns of u between
! steps, finish and verify. Built and run by the tests (fortran_step_solver_np*).
program step_solver
  use mpi
  use npblu
  implicit none
  type(npblu_solver) :: lu
  integer :: ierr, rank, ran, done, total, nx, nz, jbegin, jend
  double precision :: norms(5)
  double precision, allocatable :: u(:, :, :, :)   ! u(5, nx, nz, jbegin:jend): this rank's columns
  logical :: verified

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call npblu_create(lu, MPI_COMM_WORLD, ierr)
  call npblu_set_class(lu, 'S', ierr)
  call npblu_set_report(lu, .false., ierr)
  call npblu_start(lu, ierr)                        ! set-up, warm-up, reset: iteration 0
  if (ierr /= NPBLU_OK) error stop 'start failed'
  do
    call npblu_advance(lu, 10, ran, ierr)           ! the balancer may move columns here
    if (ierr /= NPBLU_OK) error stop 'advance failed'
    if (ran == 0) exit
    call npblu_current_residual_norms(lu, norms, ierr)
    call npblu_iterations_done(lu, done, total, ierr)
    call npblu_field_shape(lu, nx, nz, jbegin, jend, ierr)
    if (allocated(u)) deallocate (u)
    allocate (u(5, nx, nz, jbegin:jend))
    call npblu_get_field(lu, u, ierr)                ! one copy of this rank's columns
    if (ierr /= NPBLU_OK) error stop 'get_field failed'
    if (rank == 0) print '(a,i3,a,i3,a,es12.5,a,i0,a,i0,a,f9.6)', ' iteration ', done, '/', total, &
        ' residual(1) ', norms(1), ' columns ', jbegin, ':', jend, ' min density ', minval(u(1, :, :, :))
    if (minval(u(1, :, :, :)) <= 0d0) error stop 'density not positive'
  end do
  call npblu_finish(lu, ierr)                       ! error norms, surface integral, verification
  call npblu_verified(lu, verified, ierr)
  call npblu_destroy(lu, ierr)
  call MPI_Finalize(ierr)
  if (.not. verified) error stop 'class S did not verify'
  if (rank == 0) print '(a)', ' step_solver: class S verified'
end program step_solver
