/* Two solvers at the same time on the two halves of a split communicator,
 * each running class S on its half. Both must verify, and both must compute
 * the same residual norms bit for bit (the field does not depend on the
 * partition), so neither took the other's messages; and each solver runs on its half alone:
 * the stripes of the half's ranks (npblu_columns) tile class S's 10 interior columns in the
 * equal partition of that many ranks. Uses only npblu.h.
 * Run on 4 ranks. */
#include <npblu.h>
#include <stdio.h>

/* The stripes of every rank of comm tile columns 1..10 equally among comm's ranks. */
static int stripes_tile_half(MPI_Comm comm, int begin, int end) {
  int size = 0, mine[2] = {begin, end}, all[2 * 16];
  MPI_Comm_size(comm, &size);
  if (size > 16) return 0;
  MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, comm);
  int next = 1;
  for (int r = 0; r < size; ++r) {
    const int width = 10 / size + (r < 10 % size ? 1 : 0);
    if (all[2 * r] != next || all[2 * r + 1] != next + width) return 0;
    next += width;
  }
  return next == 11;
}

static int run_class_s(MPI_Comm comm, double norms[5]) {
  npblu_solver* lu = NULL;
  int verified = 0, begin = -1, end = -1;
  int status = npblu_create(&lu, comm);
  if (status == NPBLU_OK) status = npblu_set_class(lu, 'S');
  if (status == NPBLU_OK) status = npblu_set_report(lu, 0);
  if (status == NPBLU_OK) status = npblu_run(lu);
  if (status == NPBLU_OK) status = npblu_verified(lu, &verified);
  if (status == NPBLU_OK) status = npblu_residual_norms(lu, norms);
  if (status == NPBLU_OK) status = npblu_columns(lu, &begin, &end);
  const int own_half = status == NPBLU_OK && stripes_tile_half(comm, begin, end);
  if (status == NPBLU_OK && !own_half) fprintf(stderr, "the solver's stripes do not tile its half alone\n");
  if (status != NPBLU_OK) fprintf(stderr, "npblu error: %s\n", npblu_error_message(lu));
  npblu_destroy(&lu);
  return status == NPBLU_OK && verified && own_half;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 4) {
    if (rank == 0) fprintf(stderr, "split_communicator runs on 4 ranks (two solvers of 2)\n");
    MPI_Finalize();
    return 1;
  }
  const int half = rank < size / 2 ? 0 : 1;
  MPI_Comm part;
  MPI_Comm_split(MPI_COMM_WORLD, half, rank, &part);
  int part_size = 0;
  MPI_Comm_size(part, &part_size);

  /* Both halves run at once: the same tags, the same kinds of messages, on
   * communicators derived from one parent. */
  double norms[5] = {0};
  int ok = run_class_s(part, norms);
  if (rank == 0 || rank == size / 2)
    printf("half %d (%d ranks): class S %s, residual norm 1 = %.15e\n", half, part_size,
           ok ? "verified" : "NOT verified", norms[0]);

  /* The two halves ran the same problem: their results must agree exactly
   * (the field does not depend on the partition). */
  double first[5];
  for (int m = 0; m < 5; ++m) first[m] = norms[m];
  MPI_Bcast(first, 5, MPI_DOUBLE, size / 2, MPI_COMM_WORLD);
  for (int m = 0; m < 5; ++m)
    if (first[m] != norms[m]) ok = 0;

  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Comm_free(&part);
  if (rank == 0) printf("split communicator: %s\n", all ? "both halves verified, same result" : "FAILED");
  MPI_Finalize();
  return all ? 0 : 1;
}
