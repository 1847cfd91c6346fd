/* The C API's run in steps and its field. Usage (under mpiexec):
 *   c_api_stepping same CLASS SPLITS [name=value ...]
 *       a full npblu_run, then the same run stepped SPLITS ("1,49,200") iterations at a time:
 *       field checksum, residual and error norms, surface integral bitwise equal, verified
 *   c_api_stepping gather CLASS [name=value ...]
 *       this rank's u (npblu_get_field), gathered on rank 0, equals rank 0's 1-rank u bitwise
 *   c_api_stepping copy_in CLASS
 *       u saved at iteration 10 and written back at 20 (npblu_set_field) gives iteration 10's
 *       checksum and residual, and 10 more iterations give iteration 20's, bitwise
 *   c_api_stepping order CLASS
 *       calls out of order and wrong array sizes are refused on every rank; the run goes on */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npblu.h"

static int failures = 0;
static int rank = 0;

static void expect(int ok, const char* what, const npblu_solver* h) {
  if (ok) return;
  ++failures;
  fprintf(stderr, "rank %d FAIL: %s (message: \"%s\")\n", rank, what, h ? npblu_error_message(h) : "");
}

/* A call that must succeed: its failure ends the test on every rank (they all fail alike). */
static void must(int status, const char* what, const npblu_solver* h) {
  if (status == NPBLU_OK) return;
  fprintf(stderr, "rank %d FAIL: %s returned %d (%s): %s\n", rank, what, status, npblu_status_string(status),
          h ? npblu_error_message(h) : "");
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* A handle for `cls` on `comm`, quiet, with name=value options. */
static npblu_solver* configured(MPI_Comm comm, char cls, int noptions, char** options) {
  npblu_solver* h = NULL;
  must(npblu_create(&h, comm), "create", NULL);
  must(npblu_set_class(h, cls), "set_class", h);
  must(npblu_set_report(h, 0), "set_report", h);
  must(npblu_set_option(h, "quiet", ""), "quiet", h);
  for (int i = 0; i < noptions; ++i) {
    char name[128];
    const char* eq = strchr(options[i], '=');
    const size_t n = eq ? (size_t)(eq - options[i]) : strlen(options[i]);
    snprintf(name, sizeof name, "%.*s", (int)n, options[i]);
    must(npblu_set_option(h, name, eq ? eq + 1 : ""), options[i], h);
  }
  return h;
}

/* What a finished run computed, compared bit for bit. */
struct results {
  char checksum[32];
  double residual[5], error[5], surface;
  int verified;
};

static struct results results_of(npblu_solver* h) {
  struct results r;
  memset(&r, 0, sizeof r);
  must(npblu_field_checksum(h, r.checksum, sizeof r.checksum), "field_checksum", h);
  must(npblu_residual_norms(h, r.residual), "residual_norms", h);
  must(npblu_error_norms(h, r.error), "error_norms", h);
  must(npblu_surface_integral(h, &r.surface), "surface_integral", h);
  must(npblu_verified(h, &r.verified), "verified", h);
  return r;
}

/* Advances by each count of a comma list; checks the counts ran and the columns stay valid. */
static void advance_in_steps(npblu_solver* h, const char* splits) {
  char* list = strdup(splits);
  int done = 0, total = 0, ran = 0, begin = 0, end = 0;
  must(npblu_iterations_done(h, &done, &total), "iterations_done", h);
  expect(done == 0, "no iterations done after start", h);
  for (char* part = strtok(list, ","); part; part = strtok(NULL, ",")) {
    const int n = atoi(part);
    double norms[5];
    must(npblu_advance(h, n, &ran), "advance", h);
    expect(ran == (n < total - done ? n : total - done), "advance ran the iterations asked for", h);
    done += ran;
    must(npblu_current_residual_norms(h, norms), "current_residual_norms", h);
    must(npblu_columns(h, &begin, &end), "columns", h);
    expect(begin >= 1 && end > begin, "a stepped run owns columns", h);
    if (rank == 0) printf("advanced %d: %d/%d done, residual[0] %.15e\n", ran, done, total, norms[0]);
  }
  free(list);
  int now = 0;
  must(npblu_iterations_done(h, &now, NULL), "iterations_done", h);
  expect(now == done && done == total, "the steps add up to the whole run", h);
}

/* Whether every rank's final columns are the same in both runs. */
static int same_columns(const int full[2], const int stepped[2]) {
  int differ = full[0] != stepped[0] || full[1] != stepped[1], any = 0;
  MPI_Allreduce(&differ, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return !any;
}

static int same(char cls, const char* splits, int noptions, char** options) {
  npblu_solver* h = configured(MPI_COMM_WORLD, cls, noptions, options);
  int full_columns[2], stepped_columns[2];
  must(npblu_run(h), "run", h);
  const struct results full = results_of(h);
  must(npblu_columns(h, &full_columns[0], &full_columns[1]), "columns", h);
  must(npblu_start(h), "start", h);
  advance_in_steps(h, splits);
  must(npblu_finish(h), "finish", h);
  const struct results stepped = results_of(h);
  must(npblu_columns(h, &stepped_columns[0], &stepped_columns[1]), "columns", h);
  expect(full.verified == 1 && stepped.verified == 1, "both runs verify", h);
  expect(strlen(full.checksum) == 16, "a 16-digit field checksum", h);
  expect(strcmp(full.checksum, stepped.checksum) == 0, "stepped u == full u, bitwise", h);
  /* The norms are sums over ranks, so their last bits depend on the final partition: a balancer
   * reacting to measured times may end two runs on different ones (then u still agrees bitwise). */
  if (same_columns(full_columns, stepped_columns))
    expect(memcmp(&full, &stepped, sizeof full) == 0, "stepped == full, bitwise", h);
  else if (rank == 0)
    printf("the balancer ended the runs on different partitions: norms compared through u only\n");
  printf("rank %d columns [%d, %d) full, [%d, %d) stepped\n", rank, full_columns[0], full_columns[1],
         stepped_columns[0], stepped_columns[1]);
  if (rank == 0)
    printf("full    %s xcr[0] %.17e xce[0] %.17e xci %.17e\nstepped %s xcr[0] %.17e xce[0] %.17e xci %.17e\n",
           full.checksum, full.residual[0], full.error[0], full.surface, stepped.checksum,
           stepped.residual[0], stepped.error[0], stepped.surface);
  npblu_destroy(&h);
  return failures;
}

/* This rank's u of a finished stepped run, with its columns. */
static double* field_of(npblu_solver* h, int64_t* count, int* begin, int* end) {
  must(npblu_field_size(h, count), "field_size", h);
  must(npblu_columns(h, begin, end), "columns", h);
  double* u = malloc((size_t)*count * sizeof(double) + 1);
  must(npblu_get_field(h, u, *count), "get_field", h);
  return u;
}

static void run_stepped(npblu_solver* h) {
  must(npblu_start(h), "start", h);
  must(npblu_advance(h, 1000000, NULL), "advance", h);
  must(npblu_finish(h), "finish", h);
}

/* With columns=W0,W1,... the run must own exactly those stripes, not the default ones. */
static void expect_asked_columns(npblu_solver* h, int noptions, char** options, int begin, int end) {
  for (int o = 0; o < noptions; ++o) {
    if (strncmp(options[o], "columns=", 8) != 0) continue;
    int first = 1, r = 0;
    for (const char* p = options[o] + 8; *p; ++r) {
      char* after = NULL;
      const int width = (int)strtol(p, &after, 10);
      if (r == rank) {
        expect(begin == first && end == first + width, "owns the stripe asked for with columns=", h);
        return;
      }
      first += width;
      p = *after == ',' ? after + 1 : after;
    }
    expect(0, "columns= names no stripe for this rank", h);
  }
}

static int gather(char cls, int noptions, char** options) {
  int ranks = 1, begin = 0, end = 0, nx = 0, nz = 0;
  int64_t count = 0;
  npblu_solver* h = configured(MPI_COMM_WORLD, cls, noptions, options);
  run_stepped(h);
  double* mine = field_of(h, &count, &begin, &end);
  expect_asked_columns(h, noptions, options, begin, end);
  must(npblu_grid(h, &nx, NULL, &nz), "grid", h);
  expect(count == 5LL * nx * nz * (end - begin), "field_size is 5*nx*nz*columns", h);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int* counts = malloc(sizeof(int) * ranks);
  int* offsets = malloc(sizeof(int) * ranks);
  const int column = 5 * nx * nz, mine_count = (int)count;
  MPI_Gather(&mine_count, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int at = (begin - 1) * column; /* where this rank's columns go in the interior */
  MPI_Gather(&at, 1, MPI_INT, offsets, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    npblu_solver* alone = configured(MPI_COMM_SELF, cls, 0, NULL);
    run_stepped(alone);
    int64_t whole_count = 0;
    double* whole = field_of(alone, &whole_count, &begin, &end);
    double* gathered = malloc((size_t)whole_count * sizeof(double));
    MPI_Gatherv(mine, mine_count, MPI_DOUBLE, gathered, counts, offsets, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    expect(begin == 1 && whole_count == (int64_t)column * (end - begin), "one rank owns the whole interior",
           alone);
    expect(memcmp(whole, gathered, (size_t)whole_count * sizeof(double)) == 0,
           "gathered u == the 1-rank u, bitwise", alone);
    printf("gathered %d ranks: %lld doubles of u equal to the 1-rank u: %s\n", ranks, (long long)whole_count,
           memcmp(whole, gathered, (size_t)whole_count * sizeof(double)) == 0 ? "yes" : "NO");
    free(whole);
    free(gathered);
    npblu_destroy(&alone);
  } else {
    MPI_Gatherv(mine, mine_count, MPI_DOUBLE, NULL, NULL, NULL, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  }
  free(mine);
  free(counts);
  free(offsets);
  npblu_destroy(&h);
  return failures;
}

/* The field checksum and residual norms of the current state. */
static void snapshot(npblu_solver* h, char checksum[32], double norms[5]) {
  must(npblu_field_checksum(h, checksum, 32), "field_checksum", h);
  must(npblu_current_residual_norms(h, norms), "current_residual_norms", h);
}

static int copy_in(char cls) {
  npblu_solver* h = configured(MPI_COMM_WORLD, cls, 0, NULL);
  char at10[32], at20[32], now[32];
  double norms10[5], norms20[5], norms[5];
  int64_t count = 0;
  must(npblu_start(h), "start", h);
  must(npblu_advance(h, 10, NULL), "advance", h);
  must(npblu_field_size(h, &count), "field_size", h);
  double* saved = malloc((size_t)count * sizeof(double));
  must(npblu_get_field(h, saved, count), "get_field", h);
  snapshot(h, at10, norms10);
  must(npblu_advance(h, 10, NULL), "advance", h);
  snapshot(h, at20, norms20);
  expect(strcmp(at10, at20) != 0, "iterations change u", h);
  must(npblu_set_field(h, saved, count), "set_field", h);
  snapshot(h, now, norms);
  expect(strcmp(now, at10) == 0, "u written back has iteration 10's checksum", h);
  expect(memcmp(norms, norms10, sizeof norms) == 0, "and iteration 10's residual, bitwise", h);
  must(npblu_advance(h, 10, NULL), "advance", h);
  snapshot(h, now, norms);
  expect(strcmp(now, at20) == 0, "10 iterations from it give iteration 20's u", h);
  expect(memcmp(norms, norms20, sizeof norms) == 0, "and iteration 20's residual, bitwise", h);
  if (count > 0) saved[count / 2] += 1e-3; /* every rank changes one value of its part */
  must(npblu_set_field(h, saved, count), "set_field", h);
  snapshot(h, now, norms);
  expect(strcmp(now, at10) != 0, "a changed u has another checksum", h);
  expect(memcmp(norms, norms10, sizeof norms) != 0, "and another residual", h);
  if (rank == 0) printf("copy-in: iteration 10 %s, 20 %s, rewound and rerun %s\n", at10, at20, at20);
  free(saved);
  npblu_destroy(&h);
  return failures;
}

static void expect_status(npblu_solver* h, int got, int wanted, const char* call) {
  char what[256];
  snprintf(what, sizeof what, "%s: expected status %d (%s), got %d", call, wanted,
           npblu_status_string(wanted), got);
  expect(got == wanted && (got == NPBLU_OK || npblu_error_message(h)[0] != '\0'), what, h);
  if (rank == 0 && got == wanted && got != NPBLU_OK)
    printf("refused %-28s %s\n", call, npblu_error_message(h));
}

/* Calls between creation and start, and during the run, that must be refused. */
static void refused_before_start(npblu_solver* h) {
  double norms[5], value[1];
  int n = 0;
  int64_t count = 0;
  char digest[32];
  expect_status(h, npblu_advance(h, 1, &n), NPBLU_ERROR_ORDER, "advance before start");
  expect_status(h, npblu_finish(h), NPBLU_ERROR_ORDER, "finish before start");
  expect_status(h, npblu_current_residual_norms(h, norms), NPBLU_ERROR_ORDER, "norms before start");
  expect_status(h, npblu_iterations_done(h, &n, NULL), NPBLU_ERROR_ORDER, "iterations_done before start");
  expect_status(h, npblu_field_size(h, &count), NPBLU_ERROR_ORDER, "field_size before start");
  expect_status(h, npblu_get_field(h, value, 1), NPBLU_ERROR_ORDER, "get_field before start");
  expect_status(h, npblu_set_field(h, value, 1), NPBLU_ERROR_ORDER, "set_field before start");
  expect_status(h, npblu_field_checksum(h, digest, 32), NPBLU_ERROR_NO_RESULT, "field_checksum before start");
  expect_status(h, npblu_time(h, value), NPBLU_ERROR_NO_RESULT, "time before start");
}

static void refused_while_open(npblu_solver* h) {
  int64_t count = 0;
  int n = -5;
  char digest[32];
  must(npblu_field_size(h, &count), "field_size", h);
  double* u = calloc((size_t)count + 1, sizeof(double));
  expect_status(h, npblu_start(h), NPBLU_ERROR_ORDER, "start twice");
  expect_status(h, npblu_run(h), NPBLU_ERROR_ORDER, "run while a stepped run is open");
  expect_status(h, npblu_advance(h, -1, &n), NPBLU_ERROR_ARGUMENT, "advance(-1)");
  expect(n == 0, "nothing ran", h);
  expect_status(h, npblu_get_field(h, u, count + 1), NPBLU_ERROR_ARGUMENT, "get_field with a wrong size");
  expect_status(h, npblu_get_field(h, NULL, count), NPBLU_ERROR_ARGUMENT, "get_field(NULL)");
  expect_status(h, npblu_set_field(h, u, count - 1), NPBLU_ERROR_ARGUMENT, "set_field with a wrong size");
  /* Only rank 1 wrong: refused on every rank (a rank writing alone would hang in the halo exchange). */
  expect_status(h, npblu_set_field(h, u, rank == 1 ? count + 1 : count), NPBLU_ERROR_ARGUMENT,
                "set_field wrong on rank 1");
  expect_status(h, npblu_field_checksum(h, digest, 16), NPBLU_ERROR_ARGUMENT, "field_checksum(length 16)");
  expect_status(h, npblu_time(h, (double*)u), NPBLU_ERROR_NO_RESULT, "time before finish");
  free(u);
}

static void refused_after_finish(npblu_solver* h) {
  int64_t count = 0;
  int done = 0;
  double t = 0.0;
  must(npblu_field_size(h, &count), "field_size after finish", h);
  double* u = malloc((size_t)count * sizeof(double) + 1);
  expect_status(h, npblu_get_field(h, u, count), NPBLU_OK, "get_field after finish");
  expect_status(h, npblu_advance(h, 1, NULL), NPBLU_ERROR_ORDER, "advance after finish");
  expect_status(h, npblu_set_field(h, u, count), NPBLU_ERROR_ORDER, "set_field after finish");
  expect_status(h, npblu_finish(h), NPBLU_ERROR_ORDER, "finish twice");
  expect_status(h, npblu_checkpoint(h, "after_finish.h5"), NPBLU_ERROR_RUN, "checkpoint after finish");
  expect(strstr(npblu_error_message(h), "npblu_checkpoint: the run in steps has been finished") != NULL,
         "the checkpoint refusal names npblu_checkpoint", h);
  /* The run's state is checked before the path: RUN whatever the name (a bad one gave ARGUMENT). */
  expect_status(h, npblu_checkpoint(h, "/nonexistent-dir/x.h5"), NPBLU_ERROR_RUN,
                "checkpoint after finish, to a directory that does not exist");
  expect_status(h, npblu_iterations_done(h, &done, NULL), NPBLU_OK, "iterations_done after finish");
  expect_status(h, npblu_time(h, &t), NPBLU_OK, "time after finish");
  free(u);
}

static int order(char cls) {
  npblu_solver* h = configured(MPI_COMM_WORLD, cls, 0, NULL);
  int verified = 0, done = 0;
  refused_before_start(h);
  must(npblu_start(h), "start", h);
  refused_while_open(h);
  must(npblu_advance(h, 3, NULL), "advance after the refusals", h); /* the run is still open */
  must(npblu_advance(h, 1000000, NULL), "advance to the end", h);
  /* Open, but complete: a checkpoint would have nothing to continue (lu writes none after its last). */
  expect_status(h, npblu_checkpoint(h, "at_the_end.h5"), NPBLU_ERROR_RUN,
                "checkpoint after the last iteration");
  expect(strstr(npblu_error_message(h), "npblu_checkpoint: the run in steps has done its last iteration") !=
             NULL,
         "the refusal says the run is complete, not finished", h);
  must(npblu_finish(h), "finish", h);
  must(npblu_verified(h, &verified), "verified", h);
  must(npblu_iterations_done(h, &done, NULL), "iterations_done", h);
  expect(verified == 1, "a run with refused calls still verifies", h);
  refused_after_finish(h);
  must(npblu_run(h), "run after a finished stepped run", h);
  expect(npblu_start(NULL) == NPBLU_ERROR_ARGUMENT, "start(NULL)", NULL);
  expect(strcmp(npblu_status_string(NPBLU_ERROR_ORDER), "call out of order") == 0, "status string", NULL);
  /* The configuration is checked at start as at run: columns that do not tile the grid. */
  must(npblu_set_option(h, "columns", "2,2"), "columns", h);
  expect_status(h, npblu_start(h), NPBLU_ERROR_RUN, "start with a bad combination");
  expect_status(h, npblu_advance(h, 1, NULL), NPBLU_ERROR_ORDER, "advance after a refused start");
  npblu_release(&h); /* not collective: frees the memory only */
  expect(h == NULL, "release clears the handle", NULL);
  expect(npblu_release(&h) == NPBLU_OK, "release(NULL handle) is a no-op", NULL);
  return failures;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 3) {
    fprintf(stderr, "usage: c_api_stepping same|gather|copy_in|order CLASS [...]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char* mode = argv[1];
  const char cls = argv[2][0];
  int failed = 0;
  if (strcmp(mode, "same") == 0 && argc >= 4)
    failed = same(cls, argv[3], argc - 4, argv + 4);
  else if (strcmp(mode, "gather") == 0)
    failed = gather(cls, argc - 3, argv + 3);
  else if (strcmp(mode, "copy_in") == 0)
    failed = copy_in(cls);
  else if (strcmp(mode, "order") == 0)
    failed = order(cls);
  else
    failed = 1;
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("c_api_stepping %s: %s\n", mode, any ? "FAILED" : "passed");
  MPI_Finalize();
  return any ? 1 : 0;
}
