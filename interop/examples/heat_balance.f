C     HEAT_BALANCE: a legacy Fortran 77 code, a 2-D heat equation
C     (explicit Jacobi steps, variable conductivity) on its own 1-D
C     column decomposition with its own MPI halo exchange, that balances
C     its columns at run time with npblu's NPBLU_BAL_* subroutines.
C
C       mpiexec -n P heat_balance NX NCOLS NITER ISLOW KSLOW [NEVERY]
C                                     [NWIN]
C
C     The grid has NX x NCOLS interior points, fixed boundary values
C     around them. Rank ISLOW is emulated slow: it does its stencil work
C     KSLOW times per step. The program runs twice: first on its own
C     equal columns, then with the balancer, gathers both final fields
C     on rank 0 and compares them bit for bit (every point's update
C     reads the same neighbours in the same order on any partition).
C     Exit status 0 when they are identical and, with a slow rank,
C     columns moved; MPI_ABORT otherwise.
C
C     With NWIN > 0, rank 0 prints every NWIN steps of each run each
C     rank's columns and compute seconds over those steps (WINDOW lines:
C     what runs/bench_legacy_balance.py reads the balance quality from).
C
C     The balancer's part is marked "NPBLU:" below: create with the
C     code's own widths, feed compute and wait seconds every step, and
C     when the columns change migrate the arrays into new ones.
C
C     Storage: one work array in COMMON, with offsets (the F77 way).
C     Each layout of the arrays lives in one half of WORK; a migration
C     fills the other half and the halves swap. A rank may hold at most
C     (MAXWRK/2)/(3*(NX+2)) - 2 columns.
      PROGRAM HEATBL
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER MAXGLB
      PARAMETER (MAXGLB = 2000000)
      INTEGER NX, NCOLS, NITER, ISLOW, KSLOW, NEVERY, NWIN
      COMMON /PROB/ NX, NCOLS, NITER, ISLOW, KSLOW, NEVERY, NWIN
      INTEGER MYRANK, NPROCS
      COMMON /PAR/ MYRANK, NPROCS
      DOUBLE PRECISION G1(MAXGLB), G2(MAXGLB)
      COMMON /GLOB/ G1, G2
      DOUBLE PRECISION T1, T2, S1, S2, X1, X2
      INTEGER IERR, NMOV1, NMOV2, NCHG, NDIFF, K, NPTS
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, MYRANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      CALL ARGS
      NPTS = (NX + 2) * NCOLS
      IF (MYRANK .EQ. 0) THEN
         IF (NPTS .GT. MAXGLB) THEN
            WRITE (0,*) 'HEAT_BALANCE: GRID TOO LARGE FOR MAXGLB'
            CALL MPI_ABORT(MPI_COMM_WORLD, 2, IERR)
         END IF
         WRITE (*,100) NPROCS, NX, NCOLS, NITER, ISLOW, KSLOW, NEVERY
      END IF
  100 FORMAT (' HEAT_BALANCE RANKS', I4, ' NX', I6, ' NCOLS', I6,
     &        ' STEPS', I7, ' SLOW RANK', I4, ' X', I3, ' EVERY', I4)
      CALL RUN(.FALSE., T1, NMOV1, NCHG, G1)
      CALL RUN(.TRUE., T2, NMOV2, NCHG, G2)
      IF (MYRANK .EQ. 0) THEN
         NDIFF = 0
         S1 = 0D0
         S2 = 0D0
         X1 = G1(1)
         X2 = G2(1)
         DO 10 K = 1, NPTS
            IF (G1(K) .NE. G2(K)) NDIFF = NDIFF + 1
            S1 = S1 + G1(K)
            S2 = S2 + G2(K)
            X1 = MAX(X1, G1(K))
            X2 = MAX(X2, G2(K))
   10    CONTINUE
         WRITE (*,110) 'UNBALANCED', S1, X1
         WRITE (*,110) 'BALANCED  ', S2, X2
  110    FORMAT (' CHECKSUM ', A, ' SUM ', ES25.17E3, ' MAX ',
     &           ES25.17E3)
         WRITE (*,120) NMOV2, NCHG
  120    FORMAT (' MOVED COLUMNS', I8, ' IN', I5, ' CHANGES')
         WRITE (*,130) T1, T2, T2 / T1
  130    FORMAT (' TIME UNBALANCED', F10.4, ' S BALANCED', F10.4,
     &           ' S RATIO', F8.4)
         WRITE (*,140) NDIFF, NPTS
  140    FORMAT (' DIFFERING POINTS', I10, ' OF', I10)
         IF (NDIFF .NE. 0 .OR. (NMOV2 .EQ. 0 .AND. KSLOW .GT. 1
     &       .AND. NPROCS .GT. 1)) THEN
            WRITE (*,*) 'HEAT_BALANCE: FAILED'
            CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
         END IF
         WRITE (*,*) 'HEAT_BALANCE: IDENTICAL TO THE UNBALANCED RUN'
      END IF
      CALL MPI_FINALIZE(IERR)
      END

C     The command line (Fortran 2003's GET_COMMAND_ARGUMENT: what F77
C     compilers called GETARG).
      SUBROUTINE ARGS
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER NX, NCOLS, NITER, ISLOW, KSLOW, NEVERY, NWIN
      COMMON /PROB/ NX, NCOLS, NITER, ISLOW, KSLOW, NEVERY, NWIN
      INTEGER MYRANK, NPROCS
      COMMON /PAR/ MYRANK, NPROCS
      CHARACTER*32 WORD
      INTEGER IV(7), I, IOS, IERR
      IV(6) = 5
      IV(7) = 0
      DO 10 I = 1, 7
         WORD = ' '
         CALL GET_COMMAND_ARGUMENT(I, WORD)
         IOS = 0
         IF (WORD .NE. ' ') READ (WORD, *, IOSTAT=IOS) IV(I)
         IF (IOS .NE. 0 .OR. (WORD .EQ. ' ' .AND. I .LT. 6)) THEN
            IF (MYRANK .EQ. 0) WRITE (0,*) 'USAGE: heat_balance',
     &         ' NX NCOLS NITER ISLOW KSLOW [NEVERY] [NWIN]'
            CALL MPI_FINALIZE(IERR)
            STOP 2
         END IF
   10 CONTINUE
      NX = IV(1)
      NCOLS = IV(2)
      NITER = IV(3)
      ISLOW = IV(4)
      KSLOW = IV(5)
      NEVERY = IV(6)
      NWIN = IV(7)
      END

C     One run of NITER steps, with or without the balancer. T: the
C     slowest rank's seconds; NMOVED, NCHG: columns moved and changes;
C     G: the final field on rank 0 (columns 1..NCOLS, rows 0..NX+1).
      SUBROUTINE RUN(LBAL, T, NMOVED, NCHG, G)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      LOGICAL LBAL
      DOUBLE PRECISION T, G(*)
      INTEGER NMOVED, NCHG
      INTEGER MAXWRK
      PARAMETER (MAXWRK = 4000000)
      DOUBLE PRECISION WORK(MAXWRK)
      COMMON /WORK/ WORK
      INTEGER NX, NCOLS, NITER, ISLOW, KSLOW, NEVERY, NWIN
      COMMON /PROB/ NX, NCOLS, NITER, ISLOW, KSLOW, NEVERY, NWIN
      INTEGER MYRANK, NPROCS
      COMMON /PAR/ MYRANK, NPROCS
      INTEGER*8 IBAL
      INTEGER IWIDTH(1024), JF, JL, IBASE, IU, IUN, IK, IT, K, NREP
      INTEGER ICHANG, NDECIS, IERR, ITMP, NCHW
      DOUBLE PRECISION TA, TB, TC, T0, CW
C     The code's own decomposition: equal columns.
      CALL DECOMP(NCOLS, NPROCS, MYRANK, JF, JL)
      IBASE = 0
      CALL LAYOUT(IBASE, JF, JL, IU, IUN, IK)
      CALL INITF(WORK(IU), WORK(IUN), WORK(IK), NX, JF, JL, NCOLS)
      IF (LBAL) THEN
C        NPBLU: a balancer starting from the code's own widths.
         DO 10 K = 1, NPROCS
            CALL DECOMP(NCOLS, NPROCS, K - 1, IWIDTH(K), ITMP)
            IWIDTH(K) = ITMP - IWIDTH(K) + 1
   10    CONTINUE
         CALL NPBLU_BAL_CREATE(IBAL, MPI_COMM_WORLD, NCOLS, IWIDTH,
     &                         NEVERY, 0, IERR)
         IF (IERR .NE. 0) CALL MPI_ABORT(MPI_COMM_WORLD, 2, IERR)
      END IF
      NREP = 1
      IF (MYRANK .EQ. ISLOW) NREP = KSLOW
      CW = 0D0
      NCHW = 0
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      T0 = MPI_WTIME()
      DO 30 IT = 1, NITER
         TA = MPI_WTIME()
         CALL EXCHG(WORK(IU), NX, JF, JL)
         TB = MPI_WTIME()
         DO 20 K = 1, NREP
            CALL SWEEP(WORK(IU), WORK(IUN), WORK(IK), NX, JF, JL)
   20    CONTINUE
         TC = MPI_WTIME()
         ITMP = IU
         IU = IUN
         IUN = ITMP
         IF (LBAL) THEN
C           NPBLU: this step's compute and wait seconds; on a change,
C           the arrays move to the other half of WORK.
            CALL NPBLU_BAL_FEED(IBAL, TC - TB, TB - TA, ICHANG, IERR)
            IF (IERR .NE. 0) CALL MPI_ABORT(MPI_COMM_WORLD, 2, IERR)
            IF (ICHANG .EQ. 1) THEN
               CALL MIGRAT(IBAL, IBASE, JF, JL, IU, IUN, IK)
               NCHW = NCHW + 1
            END IF
         END IF
         CW = CW + (TC - TB)
         CALL WINDOW(LBAL, IT, JF, JL, CW, NCHW)
   30 CONTINUE
      T = MPI_WTIME() - T0
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, T, 1, MPI_DOUBLE_PRECISION,
     &                   MPI_MAX, MPI_COMM_WORLD, IERR)
      NMOVED = 0
      NCHG = 0
      IF (LBAL) THEN
         CALL NPBLU_BAL_TOTALS(IBAL, NDECIS, NCHG, NMOVED, IERR)
         CALL QUALTY(IBAL)
         CALL NPBLU_BAL_DESTROY(IBAL, IERR)
      END IF
      CALL GATHER(WORK(IU), NX, JF, JL, G)
      END

C     The balancer's own view of its last decision: the bottleneck ratio
C     (the slowest rank's compute over what the best whole-column ranges
C     would take, at the costs it estimated) before and after it, printed on
C     rank 0. 0 before any decision; a ratio below 1 would be a defect.
      SUBROUTINE QUALTY(IBAL)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER*8 IBAL
      INTEGER MYRANK, NPROCS
      COMMON /PAR/ MYRANK, NPROCS
      DOUBLE PRECISION QBEFOR, QAFTER
      INTEGER IERR
      CALL NPBLU_BAL_QUALITY(IBAL, QBEFOR, QAFTER, IERR)
      IF (MYRANK .NE. 0) RETURN
      WRITE (*,100) QBEFOR, QAFTER
  100 FORMAT (' LAST DECISION BOTTLENECK / BEST', F9.4, ' ->', F9.4)
      IF (IERR .NE. 0 .OR.
     &    (QAFTER .NE. 0D0 .AND. QAFTER .LT. 1D0 - 1D-9) .OR.
     &    (QBEFOR .NE. 0D0 .AND. QBEFOR .LT. 1D0 - 1D-9)) THEN
         WRITE (*,*) 'HEAT_BALANCE: FAILED (BALANCE QUALITY)'
         CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      END

C     After step IT: with NWIN > 0 and at the end of a window of NWIN
C     steps, each rank's columns (at the window's end) and compute seconds
C     CW over the window, printed on rank 0 with NCHW, the changes in the
C     window; both then start again from zero.
      SUBROUTINE WINDOW(LBAL, IT, JF, JL, CW, NCHW)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      LOGICAL LBAL
      INTEGER IT, JF, JL, NCHW
      DOUBLE PRECISION CW
      INTEGER NX, NCOLS, NITER, ISLOW, KSLOW, NEVERY, NWIN
      COMMON /PROB/ NX, NCOLS, NITER, ISLOW, KSLOW, NEVERY, NWIN
      INTEGER MYRANK, NPROCS
      COMMON /PAR/ MYRANK, NPROCS
      INTEGER NW(1024), K, IERR
      DOUBLE PRECISION CWS(1024)
      CHARACTER*10 LABEL
C     (Two IFs: Fortran may evaluate both sides of an .AND.)
      IF (NWIN .LE. 0) RETURN
      IF (MOD(IT, NWIN) .NE. 0) RETURN
      CALL MPI_GATHER(JL - JF + 1, 1, MPI_INTEGER, NW, 1, MPI_INTEGER,
     &                0, MPI_COMM_WORLD, IERR)
C     (ALLGATHER: MPI_GATHER's other calls pass integers, and gfortran
C     refuses one external routine called with two types.)
      CALL MPI_ALLGATHER(CW, 1, MPI_DOUBLE_PRECISION, CWS, 1,
     &                   MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, IERR)
      IF (MYRANK .EQ. 0) THEN
         LABEL = 'UNBALANCED'
         IF (LBAL) LABEL = 'BALANCED'
         WRITE (*,100) LABEL, IT, NCHW, (NW(K), K = 1, NPROCS)
         WRITE (*,110) (CWS(K), K = 1, NPROCS)
      END IF
C     (One line each, whatever the ranks: NW and CWS hold 1024.)
  100 FORMAT (' WINDOW ', A, ' STEP', I8, ' CHANGES', I4, ' COLUMNS',
     &        1024I7)
  110 FORMAT (' WINDOW SECONDS', 1024ES24.16E3)
      CW = 0D0
      NCHW = 0
      END

C     Where the arrays of columns JF..JL live in the half of WORK at
C     IBASE: U and UNEW with one halo column each side, the
C     conductivity AK without halo.
      SUBROUTINE LAYOUT(IBASE, JF, JL, IU, IUN, IK)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IBASE, JF, JL, IU, IUN, IK
      INTEGER MAXWRK
      PARAMETER (MAXWRK = 4000000)
      INTEGER NX, NCOLS, NITER, ISLOW, KSLOW, NEVERY, NWIN
      COMMON /PROB/ NX, NCOLS, NITER, ISLOW, KSLOW, NEVERY, NWIN
      INTEGER IERR
      IF ((NX + 2) * (3 * (JL - JF + 1) + 4) .GT. MAXWRK / 2) THEN
         WRITE (0,*) 'HEAT_BALANCE: ', JL - JF + 1,
     &      ' COLUMNS DO NOT FIT IN HALF OF MAXWRK'
         CALL MPI_ABORT(MPI_COMM_WORLD, 2, IERR)
      END IF
      IU = IBASE + 1
      IUN = IU + (NX + 2) * (JL - JF + 3)
      IK = IUN + (NX + 2) * (JL - JF + 3)
      END

C     NPBLU: the new columns, the arrays laid out on them in the other
C     half of WORK, U and AK migrated there (U's halo: one column), the
C     new UNEW's fixed boundary values copied from the new U.
      SUBROUTINE MIGRAT(IBAL, IBASE, JF, JL, IU, IUN, IK)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER*8 IBAL
      INTEGER IBASE, JF, JL, IU, IUN, IK
      INTEGER MAXWRK
      PARAMETER (MAXWRK = 4000000)
      DOUBLE PRECISION WORK(MAXWRK)
      COMMON /WORK/ WORK
      INTEGER NX, NCOLS, NITER, ISLOW, KSLOW, NEVERY, NWIN
      COMMON /PROB/ NX, NCOLS, NITER, ISLOW, KSLOW, NEVERY, NWIN
      INTEGER JFN, JLN, IBN, IUN2, IUNN2, IKN, IERR, K
      CALL NPBLU_BAL_RANGE(IBAL, JFN, JLN, IERR)
      IBN = MAXWRK / 2 - IBASE
      CALL LAYOUT(IBN, JFN, JLN, IUN2, IUNN2, IKN)
      CALL NPBLU_BAL_MIGRATE(IBAL, WORK(IU), WORK(IUN2), NX + 2, 8, 1,
     &                       IERR)
      IF (IERR .EQ. 0) CALL NPBLU_BAL_MIGRATE(IBAL, WORK(IK),
     &                       WORK(IKN), NX + 2, 8, 0, IERR)
      IF (IERR .NE. 0) CALL MPI_ABORT(MPI_COMM_WORLD, 2, IERR)
      DO 10 K = 0, (NX + 2) * (JLN - JFN + 3) - 1
         WORK(IUNN2 + K) = WORK(IUN2 + K)
   10 CONTINUE
      IBASE = IBN
      JF = JFN
      JL = JLN
      IU = IUN2
      IUN = IUNN2
      IK = IKN
      END

C     Equal columns, the remainder one each to the lowest ranks.
      SUBROUTINE DECOMP(NCOLS, NPROCS, IRANK, JF, JL)
      IMPLICIT NONE
      INTEGER NCOLS, NPROCS, IRANK, JF, JL, NB, NR
      NB = NCOLS / NPROCS
      NR = MOD(NCOLS, NPROCS)
      JF = IRANK * NB + MIN(IRANK, NR) + 1
      JL = JF + NB - 1
      IF (IRANK .LT. NR) JL = JL + 1
      END

C     Initial state: a cool background (0.25) inside and on the far
C     walls, a hot wall at J = 0, a warm one at I = 0; the conductivity
C     varies from point to point. Every value stays >= 0.25 (maximum
C     principle): a background of zero would fill the cells ahead of the
C     heat front with subnormal numbers, several times slower to compute,
C     and the front's columns would cost more than the others.
      SUBROUTINE INITF(U, UN, AK, NX, JF, JL, NCOLS)
      IMPLICIT NONE
      INTEGER NX, JF, JL, NCOLS, I, J
      DOUBLE PRECISION U(0:NX+1, JF-1:JL+1), UN(0:NX+1, JF-1:JL+1)
      DOUBLE PRECISION AK(0:NX+1, JF:JL)
      DO 20 J = JF - 1, JL + 1
         DO 10 I = 0, NX + 1
            U(I, J) = 0.25D0
            IF (J .EQ. 0) U(I, J) = 1D0
            IF (I .EQ. 0 .AND. J .GT. 0 .AND. J .LE. NCOLS)
     &         U(I, J) = 0.5D0
            UN(I, J) = U(I, J)
   10    CONTINUE
   20 CONTINUE
      DO 40 J = JF, JL
         DO 30 I = 0, NX + 1
            AK(I, J) = 0.1D0 + 0.01D0 * MOD(7 * I + 13 * J, 11)
   30    CONTINUE
   40 CONTINUE
      END

C     The halo: our first and last columns to the neighbours, theirs
C     into our halo columns (MPI_PROC_NULL at the ends of the grid).
      SUBROUTINE EXCHG(U, NX, JF, JL)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER NX, JF, JL
      DOUBLE PRECISION U(0:NX+1, JF-1:JL+1)
      INTEGER MYRANK, NPROCS
      COMMON /PAR/ MYRANK, NPROCS
      INTEGER LEFT, RIGHT, IERR, ISTAT(MPI_STATUS_SIZE)
      LEFT = MYRANK - 1
      RIGHT = MYRANK + 1
      IF (LEFT .LT. 0) LEFT = MPI_PROC_NULL
      IF (RIGHT .GE. NPROCS) RIGHT = MPI_PROC_NULL
      CALL MPI_SENDRECV(U(0, JL), NX + 2, MPI_DOUBLE_PRECISION, RIGHT,
     &   1, U(0, JF - 1), NX + 2, MPI_DOUBLE_PRECISION, LEFT, 1,
     &   MPI_COMM_WORLD, ISTAT, IERR)
      CALL MPI_SENDRECV(U(0, JF), NX + 2, MPI_DOUBLE_PRECISION, LEFT,
     &   2, U(0, JL + 1), NX + 2, MPI_DOUBLE_PRECISION, RIGHT, 2,
     &   MPI_COMM_WORLD, ISTAT, IERR)
      END

C     One explicit step on our columns. The same operations in the same
C     order at every point, whoever owns it: partition-independent.
      SUBROUTINE SWEEP(U, UN, AK, NX, JF, JL)
      IMPLICIT NONE
      INTEGER NX, JF, JL, I, J
      DOUBLE PRECISION U(0:NX+1, JF-1:JL+1), UN(0:NX+1, JF-1:JL+1)
      DOUBLE PRECISION AK(0:NX+1, JF:JL)
      DO 20 J = JF, JL
         DO 10 I = 1, NX
            UN(I, J) = U(I, J) + 0.2D0 * AK(I, J) *
     &         ((U(I - 1, J) + U(I + 1, J))
     &          + (U(I, J - 1) + U(I, J + 1)) - 4D0 * U(I, J))
   10    CONTINUE
   20 CONTINUE
      END

C     Our columns into G (columns 1..NCOLS of 0..NX+1) on rank 0.
      SUBROUTINE GATHER(U, NX, JF, JL, G)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER NX, JF, JL
      DOUBLE PRECISION U(0:NX+1, JF-1:JL+1), G(*)
      INTEGER MYRANK, NPROCS
      COMMON /PAR/ MYRANK, NPROCS
      INTEGER JFS(1024), NCNT(1024), NDSP(1024), K, IERR
      CALL MPI_GATHER(JF, 1, MPI_INTEGER, JFS, 1, MPI_INTEGER, 0,
     &                MPI_COMM_WORLD, IERR)
      CALL MPI_GATHER((NX + 2) * (JL - JF + 1), 1, MPI_INTEGER, NCNT,
     &                1, MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)
C     JFS holds the ranks' first columns on rank 0 only (MPI_GATHER).
      IF (MYRANK .EQ. 0) THEN
         DO 10 K = 1, NPROCS
            NDSP(K) = (NX + 2) * (JFS(K) - 1)
   10    CONTINUE
      END IF
      CALL MPI_GATHERV(U(0, JF), (NX + 2) * (JL - JF + 1),
     &   MPI_DOUBLE_PRECISION, G, NCNT, NDSP, MPI_DOUBLE_PRECISION, 0,
     &   MPI_COMM_WORLD, IERR)
      IF (MYRANK .EQ. 0) THEN
         WRITE (*,100) (NCNT(K) / (NX + 2), K = 1, MIN(NPROCS, 16))
  100    FORMAT (' FINAL COLUMNS PER RANK', 16I6)
      END IF
      END
