program use_from_fortran
  use mpi
  use npblu
  implicit none
  type(npblu_solver) :: lu
  integer :: ierr
  logical :: verified
  call MPI_Init(ierr)
  call npblu_create(lu, MPI_COMM_WORLD, ierr)
  call npblu_set_class(lu, 'S', ierr)
  call npblu_set_report(lu, .false., ierr)
  call npblu_run(lu, ierr)
  call npblu_verified(lu, verified, ierr)
  call npblu_destroy(lu, ierr)
  call MPI_Finalize(ierr)
  print '(a,l1)', 'downstream Fortran: class S verified = ', verified
  if (.not. verified) error stop 1
end program use_from_fortran
