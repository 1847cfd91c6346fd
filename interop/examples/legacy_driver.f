C     A legacy fixed-form Fortran 77 style driver: no modules, one plain
C     external subroutine. Runs class S and checks the verified flag.
      PROGRAM LEGACY
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, IVERIF, IRANK
      DOUBLE PRECISION TIME
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, IRANK, IERR)
      CALL LURUN('S', MPI_COMM_WORLD, TIME, IVERIF, IERR)
      IF (IERR .NE. 0 .OR. IVERIF .NE. 1) THEN
         WRITE (*,*) 'LEGACY: CLASS S FAILED, IERR=', IERR,
     &               ' IVERIF=', IVERIF
         CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      IF (IRANK .EQ. 0) WRITE (*,100) TIME
  100 FORMAT (' LEGACY DRIVER: CLASS S VERIFIED IN ', F8.4, ' S')
C     An invalid class must come back as an error code.
      CALL LURUN('Q', MPI_COMM_WORLD, TIME, IVERIF, IERR)
      IF (IERR .EQ. 0) THEN
         WRITE (*,*) 'LEGACY: INVALID CLASS ACCEPTED'
         CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      IF (IRANK .EQ. 0) WRITE (*,*) 'LEGACY DRIVER: CLASS Q REJECTED'
      CALL MPI_FINALIZE(IERR)
      END
