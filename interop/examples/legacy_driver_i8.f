C     A fixed-form driver that works whatever the size of its default
C     INTEGER: USE NPBLU_LEGACY gives LURUN an explicit interface, so a
C     code compiled with -fdefault-integer-8 (or -i8) calls LURUN8, with
C     INTEGER*8 arguments, and any mismatch is a compile-time error. The
C     tests build it with default integers and with -fdefault-integer-8.
      PROGRAM LEGI8
      USE NPBLU_LEGACY
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, IVERIF, IRANK
      DOUBLE PRECISION TIME
C     (An MPI built for 4-byte integers writes 4 bytes of these: zero them.)
      IERR = 0
      IRANK = 0
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, IRANK, IERR)
      CALL LURUN('S', MPI_COMM_WORLD, TIME, IVERIF, IERR)
      IF (IERR .NE. 0 .OR. IVERIF .NE. 1) THEN
         WRITE (*,*) 'LEGI8: CLASS S FAILED, IERR=', IERR,
     &               ' IVERIF=', IVERIF
         CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      IF (IRANK .EQ. 0) WRITE (*,100) KIND(IERR), TIME
  100 FORMAT (' LEGACY DRIVER (INTEGER*', I1, '): CLASS S VERIFIED IN ',
     &        F8.4, ' S')
      CALL LURUN('Q', MPI_COMM_WORLD, TIME, IVERIF, IERR)
      IF (IERR .EQ. 0) THEN
         WRITE (*,*) 'LEGI8: INVALID CLASS ACCEPTED'
         CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      CALL MPI_FINALIZE(IERR)
      END
