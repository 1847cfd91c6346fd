program minimal
  use mpi
  use npblu
  implicit none
  type(npblu_solver) :: lu
  integer :: ierr
  logical :: verified
  double precision :: seconds

  call MPI_Init(ierr)
  call npblu_create(lu, MPI_COMM_WORLD, ierr)
  call npblu_set_class(lu, 'S', ierr)
  call npblu_set_option(lu, 'balance', 'diffusive', ierr)
  call npblu_run(lu, ierr)
  call npblu_verified(lu, verified, ierr)
  call npblu_time(lu, seconds, ierr)
  call npblu_destroy(lu, ierr)
  call MPI_Finalize(ierr)
  if (.not. verified) error stop 1
end program minimal
