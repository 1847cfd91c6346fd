C     NPBLU_BAL_CREATE's refusals from fixed-form Fortran 77: a handle
C     that is no communicator, and MPI_COMM_NULL, come back as
C     NPBLU_ERROR_ARGUMENT (1) with the job alive (NPBLU_BAL_CREATE once
C     asked MPI for the communicator's size first, and MPI aborted the
C     job); a good communicator still gives a balancer. Exit status 0
C     on pass; STOP 1 otherwise.
      PROGRAM F77REF
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER*8 IBAL
      INTEGER IERR, IW(4), ICOMM, JF, JL, NBAD
      CALL MPI_INIT(IERR)
      NBAD = 0
      IW(1) = 0
      ICOMM = 123456
      CALL NPBLU_BAL_CREATE(IBAL, ICOMM, 20, IW, 0, 0, IERR)
      IF (IERR .NE. 1) NBAD = NBAD + 1
      IW(1) = 10
      IW(2) = 10
      CALL NPBLU_BAL_CREATE(IBAL, MPI_COMM_NULL, 20, IW, 0, 0, IERR)
      IF (IERR .NE. 1) NBAD = NBAD + 1
      CALL NPBLU_BAL_CREATE(IBAL, MPI_COMM_WORLD, 20, IW, 0, 0, IERR)
      IF (IERR .NE. 0) NBAD = NBAD + 1
      CALL NPBLU_BAL_RANGE(IBAL, JF, JL, IERR)
      IF (IERR .NE. 0 .OR. JL - JF .NE. 9) NBAD = NBAD + 1
      CALL NPBLU_BAL_DESTROY(IBAL, IERR)
      CALL MPI_FINALIZE(IERR)
      IF (NBAD .NE. 0) THEN
        WRITE (*, *) 'F77REF: ', NBAD, ' CHECKS FAILED'
        STOP 1
      END IF
      WRITE (*, *) 'F77REF: PASSED'
      END
