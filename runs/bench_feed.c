/* The cost of the balance API's calls to its caller (runs/, not a test).
 *
 *   mpiexec -n P bench_feed FEEDS EVERY CORE_SHARE [REPEATS]
 *
 * A caller of npblu_balance.h with nothing to compute: FEEDS calls of
 * npblu_balancer_feed with the same made-up times on every rank (0.1 ms of
 * compute, no wait: nothing ever moves), a decision every EVERY feeds,
 * the run-queue clock read (CORE_SHARE 1) or not (0). What a caller whose
 * steps are short pays for the balancer is what this loop takes. The loop
 * is timed REPEATS times (default 5) from a barrier; rank 0 prints one JSON
 * line: the loop's microseconds per feed on the slowest rank, per repeat,
 * and their minimum. EVERY > FEEDS times feeds that never decide; EVERY 1
 * times one decision a feed.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "interop/c/npblu_balance.h"

static int parse_int(const char* text, const char* what, int rank) {
  char* end = NULL;
  const long v = strtol(text, &end, 10);
  if (*end != '\0' || v < 0 || v > 1000000000L) {
    if (rank == 0) fprintf(stderr, "bench_feed: %s must be a non-negative integer, got '%s'\n", what, text);
    MPI_Finalize();
    exit(2);
  }
  return (int)v;
}

/* Microseconds per feed of one timed loop, on the slowest rank. */
static double timed_loop(npblu_balancer* b, int feeds) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int f = 0; f < feeds; ++f) {
    int changed = 0;
    if (npblu_balancer_feed(b, 1e-4, 0.0, &changed) != NPBLU_OK) {
      fprintf(stderr, "bench_feed: %s\n", npblu_balancer_error_message(b));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  double local = (MPI_Wtime() - t0) * 1e6 / feeds, slowest = 0.0;
  MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (argc != 4 && argc != 5) {
    if (rank == 0) fprintf(stderr, "usage: bench_feed FEEDS EVERY CORE_SHARE [REPEATS]\n");
    MPI_Finalize();
    return 2;
  }
  const int feeds = parse_int(argv[1], "FEEDS", rank);
  npblu_balance_settings s;
  npblu_balance_settings_default(&s);
  s.every = parse_int(argv[2], "EVERY", rank);
  s.core_share = parse_int(argv[3], "CORE_SHARE", rank);
  const int repeats = argc == 5 ? parse_int(argv[4], "REPEATS", rank) : 5;
  if (feeds < 1 || repeats < 1) {
    if (rank == 0) fprintf(stderr, "bench_feed: FEEDS and REPEATS must be at least 1\n");
    MPI_Finalize();
    return 2;
  }
  npblu_balancer* b = NULL;
  char message[512];
  if (npblu_balancer_create(&b, MPI_COMM_WORLD, 240 * ranks, NULL, NULL, &s, message, sizeof message) !=
      NPBLU_OK) {
    if (rank == 0) fprintf(stderr, "bench_feed: %s\n", message);
    MPI_Finalize();
    return 2;
  }
  if (rank == 0)
    printf("{\"ranks\": %d, \"feeds\": %d, \"every\": %d, \"core_share\": %d, \"us_per_feed\": [", ranks,
           feeds, s.every, s.core_share);
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    const double us = timed_loop(b, feeds);
    best = us < best ? us : best;
    if (rank == 0) printf("%s%.4f", r ? ", " : "", us);
  }
  if (rank == 0) printf("], \"min_us_per_feed\": %.4f}\n", best);
  npblu_balancer_destroy(&b);
  MPI_Finalize();
  return 0;
}
