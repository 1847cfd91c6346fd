/* The library talks on its own communicator. Every rank has its own
 * MPI_Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG) pending on the communicator it gives
 * npblu_create, for the whole run: the run must verify (none of the solver's
 * messages may be taken by the caller's receive) and the caller's own message,
 * sent after the run, must arrive intact (none of ours may be taken by the
 * solver). Uses only npblu.h and MPI. Run on 2 ranks. */
#include <npblu.h>
#include <stdio.h>

enum { kWords = 64, kCallerTag = 7 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm mine; /* the caller's communicator, handed to the library */
  MPI_Comm_dup(MPI_COMM_WORLD, &mine);

  double inbox[kWords];
  for (int i = 0; i < kWords; ++i) inbox[i] = -1.0;
  MPI_Request pending;
  MPI_Irecv(inbox, kWords, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, mine, &pending);

  npblu_solver* lu = NULL;
  int verified = 0;
  int status = npblu_create(&lu, mine);
  if (status == NPBLU_OK) status = npblu_set_class(lu, 'S');
  if (status == NPBLU_OK) status = npblu_set_report(lu, 0);
  if (status == NPBLU_OK) status = npblu_run(lu);
  if (status == NPBLU_OK) status = npblu_verified(lu, &verified);
  if (status != NPBLU_OK) fprintf(stderr, "rank %d: npblu error: %s\n", rank, npblu_error_message(lu));

  /* Our receive must still be pending: nothing of the solver's reached it.
   * (Every rank's run is over before anyone sends the caller's message.) */
  MPI_Barrier(MPI_COMM_WORLD);
  int stolen = 0;
  MPI_Test(&pending, &stolen, MPI_STATUS_IGNORE);
  if (stolen) fprintf(stderr, "rank %d: the caller's wildcard receive took a message during the run\n", rank);
  /* Every rank has looked before anyone sends the caller's message: otherwise
   * a fast neighbour's send could complete our receive before our look. */
  MPI_Barrier(MPI_COMM_WORLD);

  /* Now the caller's own message: rank r sends to rank r+1 (mod size). */
  double outbox[kWords];
  for (int i = 0; i < kWords; ++i) outbox[i] = 1000.0 * rank + i + 0.25;
  const int to = (rank + 1) % size, from = (rank + size - 1) % size;
  MPI_Send(outbox, kWords, MPI_DOUBLE, to, kCallerTag, mine);
  MPI_Status got;
  int intact = 1;
  if (!stolen) {
    MPI_Wait(&pending, &got);
    int count = 0;
    MPI_Get_count(&got, MPI_DOUBLE, &count);
    intact = got.MPI_SOURCE == from && got.MPI_TAG == kCallerTag && count == kWords;
    for (int i = 0; i < kWords; ++i) intact = intact && inbox[i] == 1000.0 * from + i + 0.25;
    if (!intact) fprintf(stderr, "rank %d: the caller's message arrived altered or from elsewhere\n", rank);
  }
  npblu_destroy(&lu);
  MPI_Comm_free(&mine);

  int ok = status == NPBLU_OK && verified && !stolen && intact, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0)
    printf("own communicator: run %s, caller's message %s\n", verified ? "verified" : "NOT verified",
           all ? "intact on every rank" : "LOST OR ALTERED");
  MPI_Finalize();
  return all ? 0 : 1;
}
