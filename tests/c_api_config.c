/* The C API's setters refuse bad values at the call, with a status and a
 * message naming the option; npblu_set_size keeps dt bit for bit (read back
 * from the JSON report); combination errors and a mid-run failure (a trace
 * write made to fail by the test-only NPBLU_TEST_FAIL_TRACE_AT) come back
 * from npblu_run as an error on every rank, and the handle stays usable.
 * Run on 2 ranks: c_api_config WORKDIR */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include <math.h>
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

/* A setter call that must be refused with NPBLU_ERROR_ARGUMENT and a message containing `text`. */
static void expect_refused(npblu_solver* h, int status, const char* call, const char* text) {
  char what[512];
  snprintf(what, sizeof what, "%s: expected NPBLU_ERROR_ARGUMENT and \"%s\", got status %d", call, text,
           status);
  expect(status == NPBLU_ERROR_ARGUMENT && strstr(npblu_error_message(h), text) != NULL, what, h);
  if (rank == 0 && status == NPBLU_ERROR_ARGUMENT) printf("refused %-48s %s\n", call, npblu_error_message(h));
}

struct bad_option {
  const char* name;
  const char* value;
  const char* text; /* the message must contain it */
};

static const struct bad_option bad_options[] = {
    {"bogus", "1", "unknown option 'bogus'"},
    {"quiet", "maybe", "--quiet 'maybe' is not a flag value"},
    {"trace-overwrite", "2", "--trace-overwrite '2' is not a flag value"},
    {"class", "Q", "unknown class 'Q'"},
    {"class", "", "unknown class ''"},
    {"iterations", "0", "--iterations must be at least 1"},
    {"iterations", "ten", "--iterations 'ten' is not an integer"},
    {"dt", "-1", "--dt must be a positive number"},
    {"dt", "inf", "--dt 'inf' must be a finite number"},
    {"size", "12 12", "--size '12 12' is not NX NY NZ"},
    {"columns", "3,-5", "--columns width -5 of rank 1 is below the minimum width 2"},
    {"size", "5 12 12", "every dimension needs at least 6 points"},
    {"columns", "", "--columns '' is not a comma-separated list"},
    {"columns", "3,,2", "--columns '3,,2'"},
    {"weights", "", "--weights: unknown weight source ''"},
    {"weights", "nan,1", "weight 'nan' must be a positive finite number"},
    {"weights", "fastest", "--weights: unknown weight source 'fastest'"},
    {"emulate-speeds", "1e-300,1", "is outside [0.01, 1]"},
    {"emulate-speeds", "1,1;", "ends with ';'"},
    {"emulate-speeds", "", "--emulate-speeds: empty schedule"},
    {"balance", "sideways", "--balance 'sideways' is not a mode"},
    {"balance-every", "0", "--balance-every must be at least 1"},
    {"balance-threshold", "-1", "--balance-threshold must be >= 0"},
    {"balance-damping", "1.5", "--balance-damping must be in (0, 1]"},
    {"calibration-iterations", "0", "--calibration-iterations must be at least 1"},
    {"json", "", "--json needs a file name"},
    {"trace", "", "--trace needs a file name"},
    {"trace-flush", "0", "--trace-flush must be at least 1"},
    {"progress-interval", "-2", "--progress-interval must be >= 0"},
};

static void bad_values_refused_at_the_call(npblu_solver* h) {
  char call[256];
  for (size_t i = 0; i < sizeof bad_options / sizeof bad_options[0]; ++i) {
    const struct bad_option* b = &bad_options[i];
    snprintf(call, sizeof call, "set_option(\"%s\", \"%s\")", b->name, b->value);
    expect_refused(h, npblu_set_option(h, b->name, b->value), call, b->text);
  }
  expect_refused(h, npblu_set_option(h, "", "1"), "set_option(\"\", \"1\")", "option name missing");
  expect_refused(h, npblu_set_option(h, NULL, "1"), "set_option(NULL, \"1\")", "option name missing");
  expect_refused(h, npblu_set_class(h, '\0'), "set_class('\\0')", "unknown class (character code 0)");
  expect_refused(h, npblu_set_class(h, 'Q'), "set_class('Q')", "unknown class 'Q'");
  expect_refused(h, npblu_set_size(h, 12, 12, 12, 3, 0.0), "set_size(dt = 0)",
                 "--dt must be a positive number");
  expect_refused(h, npblu_set_size(h, 12, 12, 12, 3, NAN), "set_size(dt = nan)",
                 "--dt must be a positive number");
  expect_refused(h, npblu_set_size(h, 12, 3, 12, 3, 0.5), "set_size(ny = 3)", "--size 12 3 12");
  expect_refused(h, npblu_set_size(h, 12, 12, 12, 0, 0.5), "set_size(iterations = 0)",
                 "--iterations must be at least 1");
  /* Flags: the accepted spellings, and "yes" is not mistaken for anything else. */
  const char* flags[] = {"", "1", "0", "true", "false", "yes", "no", "on", "off", "YES"};
  for (size_t i = 0; i < sizeof flags / sizeof flags[0]; ++i) {
    snprintf(call, sizeof call, "set_option(\"quiet\", \"%s\")", flags[i]);
    expect(npblu_set_option(h, "quiet", flags[i]) == NPBLU_OK, call, h);
  }
  expect(npblu_set_option(h, "quiet", NULL) == NPBLU_OK, "set_option(\"quiet\", NULL)", h);
}

/* The "dt" value of a JSON report, parsed with strtod. */
static double json_dt(const char* path) {
  FILE* f = fopen(path, "r");
  if (!f) return -1.0;
  static char text[1 << 20];
  const size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  const char* at = strstr(text, "\"dt\":");
  return at ? strtod(at + 5, NULL) : -1.0;
}

static void dt_round_trips(npblu_solver* h, const char* workdir, double dt) {
  char json[1024], what[256];
  snprintf(json, sizeof json, "%s/dt_%d.json", workdir, rank);
  expect(npblu_set_size(h, 12, 12, 12, 3, dt) == NPBLU_OK, "set_size with a small dt", h);
  expect(npblu_set_option(h, "json", json) == NPBLU_OK, "set_option json", h);
  expect(npblu_run(h) == NPBLU_OK, "run class U", h);
  if (rank != 0) return;
  const double back = json_dt(json);
  snprintf(what, sizeof what, "dt %.17g came back from the JSON as %.17g", dt, back);
  expect(memcmp(&back, &dt, sizeof dt) == 0, what, h);
  if (memcmp(&back, &dt, sizeof dt) == 0) printf("dt %.17g round-trips bit for bit through the JSON\n", dt);
  remove(json);
}

/* The same status on every rank. */
static int same_everywhere(int status) {
  int low = 0, high = 0;
  MPI_Allreduce(&status, &low, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&status, &high, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return low == high;
}

static void run_errors_reach_every_rank(const char* workdir) {
  npblu_solver* h = NULL;
  npblu_create(&h, MPI_COMM_WORLD);
  npblu_set_report(h, 0);
  npblu_set_class(h, 'S');
  /* A combination refused by npblu_run, before computing. */
  npblu_set_option(h, "balance-every", "3");
  int status = npblu_run(h);
  expect(status == NPBLU_ERROR_RUN && same_everywhere(status) &&
             strstr(npblu_error_message(h), "--balance-every only applies with --balance diffusive"),
         "an option of another mode refused by npblu_run on every rank", h);
  npblu_set_option(h, "balance", "diffusive");
  npblu_set_option(h, "balance-every", "2");
  /* A trace write failing on rank 0 mid-run: an error on every rank, no hang. */
  char trace[1024];
  snprintf(trace, sizeof trace, "%s/c_api_midrun.h5", workdir);
  npblu_set_option(h, "trace", trace);
  npblu_set_option(h, "trace-overwrite", "yes");
  npblu_set_option(h, "trace-flush", "4");
  setenv("NPBLU_TEST_FAIL_TRACE_AT", "10", 1);
  status = npblu_run(h);
  unsetenv("NPBLU_TEST_FAIL_TRACE_AT");
  expect(status == NPBLU_ERROR_RUN && same_everywhere(status) &&
             strstr(npblu_error_message(h), "writing the trace failed"),
         "a mid-run trace failure returned NPBLU_ERROR_RUN on every rank", h);
  if (rank == 0 && status == NPBLU_ERROR_RUN)
    printf("mid-run failure on every rank: %s\n", npblu_error_message(h));
  /* The handle and the communicator stay usable. */
  int verified = 0;
  status = npblu_run(h);
  expect(status == NPBLU_OK && npblu_verified(h, &verified) == NPBLU_OK && verified,
         "the next run on the same handle verifies", h);
  remove(trace);
  npblu_destroy(&h);
}

/* After npblu_run (of a 12^3 grid): the grid is there; a null output is refused with a message naming the
 * call. */
static void results_after_a_run(npblu_solver* h) {
  int nx = 0, ny = 0, nz = 0, end = 0;
  double seconds = 0.0;
  expect(npblu_grid(h, &nx, &ny, &nz) == NPBLU_OK && nx == 12 && ny == 12 && nz == 12,
         "npblu_grid after npblu_run gives the run's grid", h);
  expect_refused(h, npblu_time(h, NULL), "npblu_time(h, NULL)", "npblu_time: the output pointer is NULL");
  expect_refused(h, npblu_columns(h, NULL, &end), "npblu_columns(h, NULL, &end)",
                 "npblu_columns: an output pointer is NULL");
  expect(npblu_time(h, &seconds) == NPBLU_OK && seconds > 0.0, "npblu_time after a refused call", h);
  expect(npblu_release(NULL) == NPBLU_OK, "npblu_release(NULL) is a no-op", NULL);
}

/* Before any run: no result, named by the call asked. */
static void no_result_before_a_run(void) {
  npblu_solver* h = NULL;
  double mops = 0.0;
  int nx = 0;
  expect(npblu_create(&h, MPI_COMM_WORLD) == NPBLU_OK, "create", NULL);
  expect(npblu_mops(h, &mops) == NPBLU_ERROR_NO_RESULT &&
             strstr(npblu_error_message(h), "npblu_mops: no result"),
         "npblu_mops before a run: NPBLU_ERROR_NO_RESULT, named", h);
  expect(npblu_grid(h, &nx, NULL, NULL) == NPBLU_ERROR_ORDER, "npblu_grid before a run: out of order", h);
  npblu_destroy(&h);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* workdir = argc > 1 ? argv[1] : ".";
  npblu_solver* h = NULL;
  expect(npblu_create(&h, MPI_COMM_WORLD) == NPBLU_OK, "create", NULL);
  npblu_set_report(h, 0);
  bad_values_refused_at_the_call(h);
  dt_round_trips(h, workdir, 2.5e-7);
  dt_round_trips(h, workdir, 1.23456789e-3);
  results_after_a_run(h);
  npblu_destroy(&h);
  no_result_before_a_run();
  run_errors_reach_every_rank(workdir);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %d failure(s)\n", total ? "FAILED" : "passed", total);
  MPI_Finalize();
  return total ? 1 : 0;
}
