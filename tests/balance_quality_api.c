/* MPI integration test of npblu_balancer_last_quality (npblu_balance.h), in C (2 to 8 ranks):
 * the balance quality the C API reports, the bottleneck ratio, against an oracle apart from the
 * library's (tests/best_whole_column.h). A bulk-synchronous code whose rank 1 is twice as slow
 * per column feeds exact times, so the balancer's estimated costs are the true ones and its ratio
 * must be the oracle's to rounding:
 *  - before any decision both ratios are 0;
 *  - the first step: before it, equal stripes' ratio (1.5 on 2 ranks), after it, the new stripes';
 *  - in steps of microseconds, where no step pays its 10 ms prior price: nothing moves, and the
 *    last decision's ratio is the equal stripes' (above 1: the balancer saw the imbalance).
 * Exit 0 on pass, 1 on failure (every rank; tests/mpi_c_test.h). */
#include <math.h>
#include <stdio.h>

#include "best_whole_column.h"
#include "mpi_c_test.h"
#include "npblu.h"

enum { kColumns = 240 };

/* The slowest rank's time per iteration on the balancer's present stripes. */
static double slowest_of(const npblu_balancer* h, const double* cost) {
  int cuts[9];
  npblu_balancer_cuts(h, cuts);
  double compute, wait;
  return bulk_synchronous_iteration(cuts, cost, &compute, &wait);
}

/* Feeds one bulk-synchronous iteration (every rank waits for the slowest); whether it moved. */
static int feed(npblu_balancer* h, const double* cost) {
  int cuts[9], changed = 0;
  npblu_balancer_cuts(h, cuts);
  double compute, wait;
  bulk_synchronous_iteration(cuts, cost, &compute, &wait);
  CHECK(npblu_balancer_feed(h, compute, wait, &changed) == NPBLU_OK, "feed");
  return changed;
}

static npblu_balancer* balancer(npblu_balance_settings* s) {
  npblu_balance_settings_default(s);
  s->core_share = 0; /* the times are made up: this test's run queue says nothing about them */
  npblu_balancer* h = NULL;
  CHECK(npblu_balancer_create(&h, MPI_COMM_WORLD, kColumns, NULL, NULL, s, NULL, 0) == NPBLU_OK, "create");
  return h;
}

/* Expects the last decision's ratios, the balancer's and the oracle's, to agree. */
static void expect_quality(const npblu_balancer* h, double oracle_before, double oracle_after,
                           const char* what) {
  double before = -1.0, after = -1.0;
  CHECK(npblu_balancer_last_quality(h, &before, &after) == NPBLU_OK, "last_quality");
  if (rank == 0)
    printf("%s on %d ranks: bottleneck / best %.6f -> %.6f, the oracle's %.6f -> %.6f\n", what, size, before,
           after, oracle_before, oracle_after);
  CHECK(fabs(before - oracle_before) < 1e-9 && fabs(after - oracle_after) < 1e-9,
        "%s: %.12g -> %.12g, the oracle's %.12g -> %.12g", what, before, after, oracle_before, oracle_after);
}

static void test_first_step(void) {
  double cost[8];
  for (int r = 0; r < size; ++r) cost[r] = 1e-4;
  cost[1] = 2e-4; /* rank 1 is twice as slow per column */
  npblu_balance_settings s;
  npblu_balancer* h = balancer(&s);
  expect_quality(h, 0.0, 0.0, "no decision yet");
  const double best = best_whole_column(cost, size, kColumns, s.min_width);
  int changed = 0;
  for (int it = 0; it < 200 && !changed; ++it) {
    const double equal = slowest_of(h, cost);
    changed = feed(h, cost);
    if (changed) expect_quality(h, equal / best, slowest_of(h, cost) / best, "the first step");
  }
  CHECK(changed, "nothing moved in 200 iterations");
  npblu_balancer_destroy(&h);
}

static void test_priced_out(void) {
  double cost[8];
  for (int r = 0; r < size; ++r) cost[r] = 1e-8;
  cost[1] = 2e-8;
  npblu_balance_settings s;
  npblu_balancer* h = balancer(&s);
  for (int it = 0; it < 200; ++it) CHECK(!feed(h, cost), "moved columns to gain microseconds");
  const double ratio = slowest_of(h, cost) / best_whole_column(cost, size, kColumns, s.min_width);
  expect_quality(h, ratio, ratio, "priced out");
  CHECK(ratio > 1.2, "the equal stripes' ratio is %g", ratio);
  npblu_balancer_destroy(&h);
}

int main(int argc, char** argv) {
  static const mpi_c_test tests[] = {test_first_step, test_priced_out};
  return run_mpi_c_tests(argc, argv, tests, sizeof tests / sizeof tests[0]);
}
