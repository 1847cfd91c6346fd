/* MPI integration test of npblu_balance.h, in C (2 to 4 ranks):
 *  - bad inputs come back as NPBLU_ERROR_ARGUMENT with the same message on
 *    every rank, including inputs only one rank got wrong;
 *  - fed the times of a bulk-synchronous code in which rank 1 is twice as
 *    slow per column, the balancer converges near the best partition and
 *    the migrated arrays follow it;
 *  - random repartitions move two arrays of different column sizes with a
 *    halo: every owned column arrives bitwise, kept halo columns keep their
 *    values, the others are untouched.
 * Exit 0 on pass, 1 on failure (every rank; tests/mpi_c_test.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_c_test.h"
#include "npblu.h"

/* Whether every rank holds the same int and the same string. */
static int same_on_all(int value, const char* text) {
  int v[2] = {value, -value}, r[2];
  unsigned long h = 5381;
  for (const char* c = text; *c; ++c) h = h * 33 + (unsigned char)*c;
  MPI_Allreduce(v, r, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  unsigned long hh[2] = {h, ~h}, rh[2];
  MPI_Allreduce(hh, rh, 2, MPI_UNSIGNED_LONG, MPI_MAX, MPI_COMM_WORLD);
  return r[0] == -r[1] && rh[0] == ~rh[1];
}

static void expect_refused_create(const char* what, int columns, const int* widths, const double* weights,
                                  const npblu_balance_settings* s, npblu_balancer** handle) {
  char message[256] = "";
  npblu_balancer* h = (npblu_balancer*)1;
  const int status = npblu_balancer_create(handle ? handle : &h, MPI_COMM_WORLD, columns, widths, weights, s,
                                           message, (int)sizeof message);
  CHECK(status == NPBLU_ERROR_ARGUMENT, "%s: status %d", what, status);
  CHECK(strlen(message) > 0, "%s: no message", what);
  CHECK(same_on_all(status, message), "%s: ranks disagree (%s)", what, message);
  if (!handle) CHECK(h == NULL, "%s: handle not NULL", what);
  if (rank == 0) printf("refused %-28s: %s\n", what, message);
}

/* Each bad balancer setting: NPBLU_ERROR_ARGUMENT on every rank with the same message, naming the
 * setting the caller gave and the value (never lu's command-line flag). */
static void test_bad_settings(void) {
  static const struct {
    const char* what;
    const char* needle; /* the setting's name and the problem */
    int every, min_width, persistence;
    double threshold, damping;
    int core_share;
  } cases[] = {
      {"every 0", "every must be at least 1, got 0", 0, 2, 1, 0.02, 1.0, 1},
      {"every -3", "every must be at least 1, got -3", -3, 2, 1, 0.02, 1.0, 1},
      {"threshold -1", "threshold must be a non-negative number, got -1", 5, 2, 1, -1.0, 1.0, 1},
      {"threshold NaN", "threshold must be a non-negative number", 5, 2, 1, NAN, 1.0, 1},
      {"threshold inf", "threshold must be a non-negative number", 5, 2, 1, INFINITY, 1.0, 1},
      {"damping 0", "damping must be in (0, 1], got 0", 5, 2, 1, 0.02, 0.0, 1},
      {"damping 1.5", "damping must be in (0, 1], got 1.5", 5, 2, 1, 0.02, 1.5, 1},
      {"damping NaN", "damping must be in (0, 1]", 5, 2, 1, 0.02, NAN, 1},
      {"min_width 0", "min_width must be at least 1, got 0", 5, 0, 1, 0.02, 1.0, 1},
      {"persistence 0", "persistence must be at least 1 window, got 0", 5, 2, 0, 0.02, 1.0, 1},
      {"core_share 7", "core_share must be 0 or 1, got 7", 5, 2, 1, 0.02, 1.0, 7},
      {"core_share -1", "core_share must be 0 or 1, got -1", 5, 2, 1, 0.02, 1.0, -1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    npblu_balance_settings s;
    npblu_balance_settings_default(&s);
    s.every = cases[i].every;
    s.min_width = cases[i].min_width;
    s.persistence = cases[i].persistence;
    s.threshold = cases[i].threshold;
    s.damping = cases[i].damping;
    s.core_share = cases[i].core_share;
    char message[256] = "";
    npblu_balancer* h = (npblu_balancer*)1;
    const int status =
        npblu_balancer_create(&h, MPI_COMM_WORLD, 100, NULL, NULL, &s, message, (int)sizeof message);
    CHECK(status == NPBLU_ERROR_ARGUMENT, "%s: status %d", cases[i].what, status);
    CHECK(h == NULL, "%s: handle not NULL", cases[i].what);
    CHECK(strstr(message, cases[i].needle) != NULL, "%s: the message does not name the setting: '%s'",
          cases[i].what, message);
    CHECK(strstr(message, "--") == NULL, "%s: the message names a flag: '%s'", cases[i].what, message);
    CHECK(same_on_all(status, message), "%s: ranks disagree (%s)", cases[i].what, message);
    if (rank == 0) printf("refused %-28s: %s\n", cases[i].what, message);
  }
}

/* Feeds: a bad time on one rank is refused there at once and everywhere at the decision
 * (every = 2), also when it comes in the deciding feed itself. */
static void test_bad_feeds(npblu_balancer* h) {
  const int first = npblu_balancer_feed(h, rank == size - 1 ? NAN : 1.0, 0.0, NULL);
  CHECK(first == (rank == size - 1 ? NPBLU_ERROR_ARGUMENT : NPBLU_OK), "NaN feed: status %d", first);
  int changed = 7;
  const int second = npblu_balancer_feed(h, 1.0, 0.0, &changed);
  CHECK(second == NPBLU_ERROR_ARGUMENT && changed == 0, "decision after a NaN: status %d", second);
  CHECK(same_on_all(second, npblu_balancer_error_message(h)), "NaN verdict differs: %s",
        npblu_balancer_error_message(h));
  if (rank == 0) printf("refused NaN feed on rank %d: %s\n", size - 1, npblu_balancer_error_message(h));
  /* A bad time in the deciding feed itself: refused alike everywhere, naming the rank. */
  CHECK(npblu_balancer_feed(h, 1.0, 0.0, NULL) == NPBLU_OK, "a good feed after a refused decision");
  const int deciding = npblu_balancer_feed(h, 1.0, rank == size - 1 ? -1.0 : 0.0, &changed);
  char named[32];
  snprintf(named, sizeof named, "(rank %d)", size - 1);
  CHECK(deciding == NPBLU_ERROR_ARGUMENT && changed == 0 && strstr(npblu_balancer_error_message(h), named),
        "negative wait in the deciding feed: status %d, %s", deciding, npblu_balancer_error_message(h));
  CHECK(same_on_all(deciding, npblu_balancer_error_message(h)), "deciding-feed verdict differs: %s",
        npblu_balancer_error_message(h));
}

/* The new array overlapping the old, a null column_bytes, a getter's NULL output: refused, naming it. */
static void test_overlap_and_null_outputs(npblu_balancer* h) {
  double a[200], b[200];
  const void* olds[1] = {a};
  void* news[1] = {a};
  size_t bytes[1] = {sizeof(double)};
  int status = npblu_balancer_migrate(h, 1, olds, news, bytes, 0);
  CHECK(status == NPBLU_ERROR_ARGUMENT && same_on_all(status, npblu_balancer_error_message(h)) &&
            strstr(npblu_balancer_error_message(h), "the new array overlaps the old one") != NULL,
        "overlapping arrays: %d %s", status, npblu_balancer_error_message(h));
  news[0] = b;
  status = npblu_balancer_migrate(h, 1, olds, news, NULL, 0);
  CHECK(status == NPBLU_ERROR_ARGUMENT &&
            strstr(npblu_balancer_error_message(h), "column_bytes is a null") != NULL,
        "null column_bytes: %s", npblu_balancer_error_message(h));
  int end_column = 0;
  CHECK(npblu_balancer_columns(h, NULL, &end_column) == NPBLU_ERROR_ARGUMENT &&
            strcmp(npblu_balancer_error_message(h), "npblu_balancer_columns: an output pointer is NULL") == 0,
        "columns(NULL): %s", npblu_balancer_error_message(h));
  CHECK(npblu_balancer_cuts(h, NULL) == NPBLU_ERROR_ARGUMENT &&
            strcmp(npblu_balancer_error_message(h), "npblu_balancer_cuts: an output pointer is NULL") == 0,
        "cuts(NULL): %s", npblu_balancer_error_message(h));
}

static void test_bad_inputs(void) {
  npblu_balance_settings s;
  npblu_balance_settings_default(&s);
  int widths[8];
  for (int r = 0; r < size; ++r) widths[r] = 3;
  widths[0] = 2; /* sums to 3 * size - 1 */
  expect_refused_create("widths not summing", 3 * size, widths, NULL, NULL, NULL);
  expect_refused_create("too many ranks", 2 * size - 1, NULL, NULL, NULL, NULL);
  double weights[8];
  for (int r = 0; r < size; ++r) weights[r] = 1.0;
  weights[size - 1] = -1.0;
  expect_refused_create("negative weight", 100, NULL, weights, NULL, NULL);
  expect_refused_create("widths and weights", 3 * size, widths, weights, NULL, NULL);
  test_bad_settings();
  npblu_balance_settings_default(&s);
  s.threshold = rank == size - 1 ? -1.0 : 0.02; /* wrong on one rank only */
  expect_refused_create("threshold -1 on one rank", 100, NULL, NULL, &s, NULL);
  expect_refused_create("columns differ by rank", 100 + rank, NULL, NULL, NULL, NULL);
  /* (a null handle pointer on one rank: the others must not hang either) */
  {
    char message[256] = "";
    npblu_balancer* h = NULL;
    const int status =
        npblu_balancer_create(rank == 0 ? NULL : &h, MPI_COMM_WORLD, 100, NULL, NULL, NULL, message, 256);
    CHECK(status == NPBLU_ERROR_ARGUMENT && h == NULL, "null handle pointer on rank 0: status %d", status);
    CHECK(same_on_all(status, message), "null handle pointer: ranks disagree");
  }
  int cuts[9];
  char message[256] = "";
  CHECK(npblu_partition_from_weights(10, 2, NULL, 2, cuts, message, 256) == NPBLU_ERROR_ARGUMENT &&
            strcmp(message, "weights is a null pointer") == 0,
        "null weights: %s", message);
  CHECK(npblu_partition_from_weights(10, -1, weights, 2, cuts, message, 256) == NPBLU_ERROR_ARGUMENT &&
            strcmp(message, "ranks -1 is below 1") == 0,
        "ranks -1: %s", message);
  CHECK(npblu_partition_from_weights(3, 2, weights, 2, cuts, message, 256) == NPBLU_ERROR_ARGUMENT,
        "too many ranks");
  CHECK(strstr(message, "too many ranks") != NULL, "message: %s", message);
  CHECK(npblu_balancer_feed(NULL, 1.0, 0.0, NULL) == NPBLU_ERROR_ARGUMENT, "null handle feed");
  CHECK(npblu_balancer_migrate(NULL, 0, NULL, NULL, NULL, 0) == NPBLU_ERROR_ARGUMENT, "null handle migrate");
  CHECK(strcmp(npblu_balancer_error_message(NULL), "null handle") == 0, "null handle message");

  npblu_balancer* h = NULL;
  npblu_balance_settings_default(&s);
  s.every = 2;
  CHECK(npblu_balancer_create(&h, MPI_COMM_WORLD, 100, NULL, NULL, &s, NULL, 0) == NPBLU_OK, "create");
  test_bad_feeds(h);
  /* Migration: a null array on one rank, different halos. */
  double a[200], b[200];
  const void* olds[1] = {rank == 0 ? NULL : a};
  void* news[1] = {b};
  size_t bytes[1] = {sizeof(double)};
  int status = npblu_balancer_migrate(h, 1, olds, news, bytes, 0);
  CHECK(status == NPBLU_ERROR_ARGUMENT && same_on_all(status, npblu_balancer_error_message(h)),
        "null array on rank 0: %d", status);
  olds[0] = a;
  status = npblu_balancer_migrate(h, 1, olds, news, bytes, rank == 0 ? 1 : 0);
  CHECK(status == NPBLU_ERROR_ARGUMENT && same_on_all(status, npblu_balancer_error_message(h)),
        "different halos: %d", status);
  test_overlap_and_null_outputs(h);
  int bad_widths[8];
  for (int r = 0; r < size; ++r) bad_widths[r] = 100 / size;
  bad_widths[0] += 100 % size + (rank == 1); /* wrong only on rank 1 */
  status = npblu_balancer_set_widths(h, bad_widths);
  CHECK(status == NPBLU_ERROR_ARGUMENT && same_on_all(status, npblu_balancer_error_message(h)),
        "bad widths on rank 1: %d", status);
  npblu_balancer_destroy(&h);
  CHECK(h == NULL, "destroy leaves a handle");
}

/* One double per (element, column): a value no other (array, column, element) has. */
static double value_of(int array, int column, int element) {
  return array * 1e6 + column * 100.0 + element + 0.25;
}

/* Bulk-synchronous timings: every rank waits for the slowest. */
static double* columns_array(int begin, int end, int per_column) {
  return (double*)malloc(sizeof(double) * (size_t)(end - begin) * per_column);
}

static void test_convergence(void) {
  const int columns = 240, halo = 1, per_column = 3;
  double cost[8];
  for (int r = 0; r < size; ++r) cost[r] = 1e-4;
  cost[1] = 2e-4; /* rank 1 is twice as slow per column */
  npblu_balance_settings s;
  npblu_balance_settings_default(&s);
  s.core_share = 0; /* the times are made up: the real run queue of this test says nothing about them */
  npblu_balancer* h = NULL;
  CHECK(npblu_balancer_create(&h, MPI_COMM_WORLD, columns, NULL, NULL, &s, NULL, 0) == NPBLU_OK, "create");
  int begin, end, cuts[9];
  npblu_balancer_columns(h, &begin, &end);
  double* u = columns_array(begin - halo, end + halo, per_column);
  for (int j = begin - halo; j < end + halo; ++j)
    for (int e = 0; e < per_column; ++e) u[(j - begin + halo) * per_column + e] = value_of(0, j, e);
  for (int it = 0; it < 200; ++it) {
    npblu_balancer_cuts(h, cuts);
    double compute, wait;
    bulk_synchronous_iteration(cuts, cost, &compute, &wait);
    int changed = 0;
    CHECK(npblu_balancer_feed(h, compute, wait, &changed) == NPBLU_OK, "feed: %s",
          npblu_balancer_error_message(h));
    if (!changed) continue;
    npblu_balancer_columns(h, &begin, &end);
    double* next = columns_array(begin - halo, end + halo, per_column);
    const void* olds[1] = {u};
    void* news[1] = {next};
    const size_t bytes[1] = {sizeof(double) * per_column};
    CHECK(npblu_balancer_migrate(h, 1, olds, news, bytes, halo) == NPBLU_OK, "migrate");
    free(u);
    u = next;
  }
  for (int j = begin; j < end; ++j)
    for (int e = 0; e < per_column; ++e)
      CHECK(u[(j - begin + halo) * per_column + e] == value_of(0, j, e), "column %d lost in migration", j);
  free(u);
  /* The best continuous split gives the slowest rank time T = columns / sum(1 / cost). The balancer
   * stops within its dead band (1.5 columns of the slowest rank's time) of the best whole-column
   * split, itself within one column of T: so the final bottleneck is within 2.5 columns' time. */
  npblu_balancer_cuts(h, cuts);
  double inverse = 0.0, bottleneck = 0.0, max_cost = 0.0;
  for (int r = 0; r < size; ++r) {
    inverse += 1.0 / cost[r];
    bottleneck = fmax(bottleneck, (cuts[r + 1] - cuts[r]) * cost[r]);
    max_cost = fmax(max_cost, cost[r]);
  }
  const double ideal = columns / inverse;
  int decisions, changes, moved;
  npblu_balancer_totals(h, &decisions, &changes, &moved);
  double before, after;
  npblu_balancer_last_decision(h, NULL, NULL, &before, &after);
  if (rank == 0) {
    printf("convergence on %d ranks: widths", size);
    for (int r = 0; r < size; ++r) printf(" %d", cuts[r + 1] - cuts[r]);
    printf(
        "; bottleneck %.4g s vs ideal %.4g s; %d decisions, %d changes, %d columns moved; "
        "last predicted imbalance %.3f -> %.3f\n",
        bottleneck, ideal, decisions, changes, moved, before, after);
  }
  CHECK(decisions == 40, "decisions %d", decisions);
  CHECK(changes >= 1 && moved > 0, "nothing moved");
  CHECK(bottleneck <= ideal + 2.5 * max_cost, "bottleneck %g, ideal %g", bottleneck, ideal);
  CHECK(cuts[2] - cuts[1] < columns / size, "slow rank 1 kept %d columns", cuts[2] - cuts[1]);
  npblu_balancer_destroy(&h);
}

/* Equal ranks whose times carry seeded noise (every rank's compute jittered by up to +-2% per
 * iteration, a different draw per rank and iteration, the same sequence on every run): nothing is
 * slow, so nothing may move. */
/* Rank 1 twice as slow, in steps of microseconds: what balancing gains over any horizon this run
 * can show (a microsecond a step) never pays for a first step priced at 10 ms (the C API's prior,
 * interop/c/npblu_balance_c.cpp), so nothing moves; test_convergence, the same slow rank in steps
 * of milliseconds, moves. With the solver's prior of one step, this run moved at its first decision. */
static void test_first_step_priced(void) {
  const int columns = 240;
  double cost[8];
  for (int r = 0; r < size; ++r) cost[r] = 1e-8;
  cost[1] = 2e-8;
  npblu_balance_settings s;
  npblu_balance_settings_default(&s);
  s.core_share = 0;
  npblu_balancer* h = NULL;
  CHECK(npblu_balancer_create(&h, MPI_COMM_WORLD, columns, NULL, NULL, &s, NULL, 0) == NPBLU_OK, "create");
  for (int it = 0; it < 200; ++it) {
    int cuts[9], changed = 0;
    double compute, wait;
    npblu_balancer_cuts(h, cuts);
    bulk_synchronous_iteration(cuts, cost, &compute, &wait);
    CHECK(npblu_balancer_feed(h, compute, wait, &changed) == NPBLU_OK, "feed");
  }
  int decisions, changes, moved;
  double before = 0.0;
  npblu_balancer_totals(h, &decisions, &changes, &moved);
  npblu_balancer_last_decision(h, NULL, NULL, &before, NULL);
  if (rank == 0)
    printf("a slow rank in steps of microseconds: %d decisions, %d columns moved, imbalance %.3f\n",
           decisions, moved, before);
  CHECK(decisions == 40 && moved == 0, "moved %d columns to gain microseconds", moved);
  CHECK(before > 1.2, "the imbalance the decisions saw: %g", before); /* they saw it, and let it be */
  npblu_balancer_destroy(&h);
}

static void test_still_under_noise(void) {
  const int columns = 240;
  npblu_balance_settings s;
  npblu_balance_settings_default(&s);
  s.core_share = 0;
  npblu_balancer* h = NULL;
  CHECK(npblu_balancer_create(&h, MPI_COMM_WORLD, columns, NULL, NULL, &s, NULL, 0) == NPBLU_OK, "create");
  uint64_t noise = 987654321ULL;
  for (int it = 0; it < 200; ++it) {
    int cuts[9];
    npblu_balancer_cuts(h, cuts);
    double times[8], slowest = 0.0;
    for (int r = 0; r < size; ++r) {
      uint64_t z = (noise += 0x9e3779b97f4a7c15ULL);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      const double jitter = ((double)((z ^ (z >> 31)) % 10001) / 10000.0 - 0.5) * 0.04;
      times[r] = (cuts[r + 1] - cuts[r]) * 1e-4 * (1.0 + jitter);
      slowest = fmax(slowest, times[r]);
    }
    int changed = 0;
    CHECK(npblu_balancer_feed(h, times[rank], slowest - times[rank], &changed) == NPBLU_OK, "feed");
  }
  int decisions, changes, moved;
  npblu_balancer_totals(h, &decisions, &changes, &moved);
  if (rank == 0)
    printf("equal ranks under +-2%% seeded noise: %d decisions, %d columns moved\n", decisions, moved);
  CHECK(decisions == 40 && moved == 0, "moved %d columns where nothing is slow", moved);
  npblu_balancer_destroy(&h);
}

/* splitmix64: the same sequence on every rank. */
static uint64_t state = 12345;
static int below(int n) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return (int)((z ^ (z >> 31)) % (uint64_t)n);
}

enum { kDoubles = 3, kBytes = 5, kHalo = 2, kColumns = 37, kSentinel = 0xAB };

static void fill(double* d, unsigned char* c, int begin, int end) {
  for (int j = begin - kHalo; j < end + kHalo; ++j) {
    for (int e = 0; e < kDoubles; ++e) d[(j - begin + kHalo) * kDoubles + e] = value_of(1, j, e);
    for (int e = 0; e < kBytes; ++e) c[(j - begin + kHalo) * kBytes + e] = (unsigned char)(j * 7 + e);
  }
}

/* Owned and kept columns hold their values; columns stored nowhere before hold the sentinel. */
static void check_arrived(const double* d, const unsigned char* c, int old_begin, int old_end, int begin,
                          int end) {
  for (int j = begin - kHalo; j < end + kHalo; ++j) {
    const int known = j >= old_begin - kHalo && j < old_end + kHalo;
    const int expected = (j >= begin && j < end) || known;
    const double* dj = d + (j - begin + kHalo) * kDoubles;
    const unsigned char* cj = c + (j - begin + kHalo) * kBytes;
    for (int e = 0; e < kDoubles; ++e) {
      if (expected) {
        CHECK(memcmp(&dj[e], &(double){value_of(1, j, e)}, sizeof(double)) == 0, "double col %d", j);
      } else {
        unsigned char raw[sizeof(double)];
        memcpy(raw, &dj[e], sizeof raw);
        CHECK(raw[0] == kSentinel && raw[7] == kSentinel, "untouched halo col %d overwritten", j);
      }
    }
    for (int e = 0; e < kBytes; ++e)
      CHECK(cj[e] == (expected ? (unsigned char)(j * 7 + e) : kSentinel), "byte col %d elem %d", j, e);
  }
}

static void random_widths(int* widths, int min_width) {
  int spare = kColumns - min_width * size;
  for (int r = 0; r < size; ++r) widths[r] = min_width;
  if (below(3) == 0) {
    widths[below(size)] += spare; /* nearly everything to one rank: multi-hop moves */
    return;
  }
  while (spare-- > 0) ++widths[below(size)];
}

static void test_random_migration(void) {
  npblu_balance_settings s;
  npblu_balance_settings_default(&s);
  s.min_width = 1;
  npblu_balancer* h = NULL;
  CHECK(npblu_balancer_create(&h, MPI_COMM_WORLD, kColumns, NULL, NULL, &s, NULL, 0) == NPBLU_OK, "create");
  int begin, end, widths[8];
  npblu_balancer_columns(h, &begin, &end);
  double* d = columns_array(begin - kHalo, end + kHalo, kDoubles);
  unsigned char* c = malloc((size_t)(end - begin + 2 * kHalo) * kBytes);
  fill(d, c, begin, end);
  for (int step = 0; step < 30; ++step) {
    random_widths(widths, s.min_width);
    CHECK(npblu_balancer_set_widths(h, widths) == NPBLU_OK, "set widths: %s",
          npblu_balancer_error_message(h));
    int old_begin, old_end;
    npblu_balancer_previous_columns(h, &old_begin, &old_end);
    npblu_balancer_columns(h, &begin, &end);
    const size_t n = (size_t)(end - begin + 2 * kHalo);
    double* nd = malloc(n * kDoubles * sizeof(double));
    unsigned char* nc = malloc(n * kBytes);
    memset(nd, kSentinel, n * kDoubles * sizeof(double));
    memset(nc, kSentinel, n * kBytes);
    const void* olds[2] = {d, c};
    void* news[2] = {nd, nc};
    const size_t bytes[2] = {kDoubles * sizeof(double), kBytes};
    CHECK(npblu_balancer_migrate(h, 2, olds, news, bytes, kHalo) == NPBLU_OK, "migrate: %s",
          npblu_balancer_error_message(h));
    check_arrived(nd, nc, old_begin, old_end, begin, end);
    free(d);
    free(c);
    d = nd;
    c = nc;
    fill(d, c, begin, end); /* the caller's halo exchange */
  }
  free(d);
  free(c);
  npblu_balancer_destroy(&h);
  if (rank == 0) printf("random migration on %d ranks: 30 repartitions checked\n", size);
}

/* Rank 1 twice as slow per column: the others would take 240 / (size - 0.5) columns each, but
 * their memory holds 240 / size + 5. No range ever passes its limit, the fast ranks end at theirs
 * (the best partition within the limits), and limits that cannot hold the columns are refused alike
 * on every rank, the balancer unchanged. */
static void test_memory_limits(void) {
  const int columns = 240;
  double cost[8];
  int limits[8], cuts[9];
  for (int r = 0; r < size; ++r) cost[r] = 1e-4, limits[r] = columns / size + 5;
  cost[1] = 2e-4;
  npblu_balance_settings s;
  npblu_balance_settings_default(&s);
  s.core_share = 0; /* made-up times */
  npblu_balancer* h = NULL;
  CHECK(npblu_balancer_create(&h, MPI_COMM_WORLD, columns, NULL, NULL, &s, NULL, 0) == NPBLU_OK, "create");
  int too_few[8];
  for (int r = 0; r < size; ++r) too_few[r] = columns / size - 1;
  const int status = npblu_balancer_set_max_widths(h, too_few);
  CHECK(status == NPBLU_ERROR_ARGUMENT, "limits adding up to fewer than the columns: status %d", status);
  CHECK(same_on_all(status, npblu_balancer_error_message(h)), "refused limits: not the same on every rank");
  CHECK(strstr(npblu_balancer_error_message(h), "npblu_balancer_set_max_widths: the ranks' maximum widths") !=
            NULL,
        "message: %s", npblu_balancer_error_message(h));
  CHECK(npblu_balancer_set_max_widths(h, limits) == NPBLU_OK, "set limits: %s",
        npblu_balancer_error_message(h));
  int widest = 0;
  for (int it = 0; it < 200; ++it) {
    npblu_balancer_cuts(h, cuts);
    for (int r = 0; r < size; ++r) {
      widest = cuts[r + 1] - cuts[r] > widest ? cuts[r + 1] - cuts[r] : widest;
      CHECK(cuts[r + 1] - cuts[r] <= limits[r], "iteration %d: rank %d holds %d columns, limit %d", it, r,
            cuts[r + 1] - cuts[r], limits[r]);
    }
    double compute, wait;
    bulk_synchronous_iteration(cuts, cost, &compute, &wait);
    int changed = 0;
    CHECK(npblu_balancer_feed(h, compute, wait, &changed) == NPBLU_OK, "feed: %s",
          npblu_balancer_error_message(h));
    if (changed) CHECK(npblu_balancer_migrate(h, 0, NULL, NULL, NULL, 0) == NPBLU_OK, "migrate");
  }
  npblu_balancer_cuts(h, cuts);
  for (int r = 0; r < size; ++r)
    if (r != 1)
      CHECK(cuts[r + 1] - cuts[r] == limits[r], "fast rank %d ends at %d, not its limit %d", r,
            cuts[r + 1] - cuts[r], limits[r]);
  if (rank == 0)
    printf("memory limits of %d columns a rank: widest range %d; rank 1 ends at %d\n", limits[0], widest,
           cuts[2] - cuts[1]);
  CHECK(npblu_balancer_set_max_widths(h, NULL) == NPBLU_OK, "limits removed");
  npblu_balancer_destroy(&h);
}

int main(int argc, char** argv) {
  static const mpi_c_test tests[] = {test_bad_inputs,        test_convergence,       test_memory_limits,
                                     test_still_under_noise, test_first_step_priced, test_random_migration};
  return run_mpi_c_tests(argc, argv, tests, sizeof tests / sizeof tests[0]);
}
