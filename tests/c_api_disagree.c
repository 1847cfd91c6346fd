/* Collective calls whose arguments differ between ranks (issue 22): every rank must return the same
 * refusal (the same status and message, naming the rank that differs) within 5 s, never hang or
 * crash, and the handle must stay usable. Invalid communicators and sizes give a status.
 *   mpiexec -n 2 c_api_disagree CASE      (CASE: see the table below; "list" prints them)
 * Each case arms alarm(5) around the disagreeing call: a hang ends the test by SIGALRM. */
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npblu.h"

static int rank = 0, failures = 0;

static void check(int ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "rank %d FAIL: %s\n", rank, what);
    ++failures;
  }
}

static uint64_t digest(const char* text) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (; *text; ++text) h = (h ^ (unsigned char)*text) * 0x100000001b3ULL;
  return h;
}

/* The same status and message on every rank, an error, naming `needle`. */
static void same_refusal(int status, const char* message, const char* needle) {
  uint64_t mine[2] = {(uint64_t)status, digest(message)}, low[2], high[2];
  MPI_Allreduce(mine, low, 2, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(mine, high, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  check(status != NPBLU_OK, "the disagreeing call was not refused");
  check(low[0] == high[0], "the ranks returned different statuses");
  check(low[1] == high[1], "the ranks returned different messages");
  check(strstr(message, needle) != NULL, "the message does not name what differs");
  if (rank == 0) printf("refused alike on every rank (status %d): %s\n", status, message);
}

static npblu_solver* started(const char* cls) {
  npblu_solver* h = NULL;
  npblu_create(&h, MPI_COMM_WORLD);
  npblu_set_class(h, cls[0]);
  npblu_set_report(h, 0);
  npblu_set_option(h, "quiet", "");
  check(npblu_start(h) == NPBLU_OK, "start");
  return h;
}

/* After a refusal the handle goes on: one iteration on every rank, then finish and destroy. */
static void still_usable(npblu_solver* h) {
  int ran = 0;
  check(npblu_advance(h, 1, &ran) == NPBLU_OK && ran == 1, "the handle is not usable after the refusal");
  check(npblu_finish(h) == NPBLU_OK, "finish after the refusal");
  check(npblu_destroy(&h) == NPBLU_OK, "destroy");
}

static void advance_values(int mine, const char* needle) {
  npblu_solver* h = started("S");
  int ran = -7;
  alarm(5);
  const int status = npblu_advance(h, mine, &ran);
  alarm(0);
  same_refusal(status, npblu_error_message(h), needle);
  check(ran == 0, "a refused advance ran iterations");
  still_usable(h);
}

static void start_config(void (*configure)(npblu_solver*), const char* needle) {
  npblu_solver* h = NULL;
  npblu_create(&h, MPI_COMM_WORLD);
  npblu_set_report(h, 0);
  configure(h);
  alarm(5);
  const int status = npblu_start(h);
  alarm(0);
  same_refusal(status, npblu_error_message(h), needle);
  npblu_set_class(h, 'S'); /* now the same everywhere: it starts */
  npblu_set_option(h, "balance", "static");
  npblu_set_option(h, "columns", "5,5");
  check(npblu_start(h) == NPBLU_OK, "start once the ranks agree");
  still_usable(h);
}

static void class_rank0_only(npblu_solver* h) {
  if (rank == 0) npblu_set_class(h, 'S');
}
static void class_s_and_w(npblu_solver* h) { npblu_set_class(h, rank == 0 ? 'S' : 'W'); }
static void diffusive_rank0_only(npblu_solver* h) {
  npblu_set_class(h, 'S');
  if (rank == 0) npblu_set_option(h, "balance", "diffusive");
}
static void columns_differ(npblu_solver* h) {
  npblu_set_class(h, 'S');
  npblu_set_option(h, "columns", rank == 0 ? "5,5" : "4,6");
}

static void checkpoint_empty_one_rank(void) {
  npblu_solver* h = started("S");
  alarm(5);
  const int status = npblu_checkpoint(h, rank == 0 ? "disagree_ckpt.h5" : "");
  alarm(0);
  same_refusal(status, npblu_error_message(h), "rank 1 passed other arguments than rank 0");
  check(access("disagree_ckpt.h5", F_OK) != 0, "a checkpoint was written although refused");
  still_usable(h);
}

/* A buffer only one rank got wrong: every rank refuses alike, naming that rank. */
static void result_buffers_one_rank(void) {
  npblu_solver* h = started("S");
  double norms[5];
  char text[32];
  alarm(5);
  int status = npblu_current_residual_norms(h, rank == 1 ? NULL : norms);
  same_refusal(status, npblu_error_message(h), "a null array on rank 1");
  status = npblu_field_checksum(h, text, rank == 1 ? 8 : (int)sizeof text);
  same_refusal(status, npblu_error_message(h), "a buffer of 8 characters on rank 1");
  alarm(0);
  still_usable(h);
}

static void set_field_rank0_only(void) {
  npblu_solver* h = started("S");
  int64_t count = 0;
  npblu_field_size(h, &count);
  double* u = malloc(sizeof(double) * (size_t)(count > 0 ? count : 1));
  npblu_get_field(h, u, count);
  int ran = 0;
  alarm(5);
  const int status = rank == 0 ? npblu_set_field(h, u, count) : npblu_advance(h, 1, &ran);
  alarm(0);
  same_refusal(status, npblu_error_message(h), "rank 0 called npblu_set_field, rank 1 called npblu_advance");
  free(u);
  still_usable(h);
}

static void run_and_start(void) {
  npblu_solver* h = NULL;
  npblu_create(&h, MPI_COMM_WORLD);
  npblu_set_class(h, 'S');
  npblu_set_report(h, 0);
  alarm(5);
  const int status = rank == 0 ? npblu_run(h) : npblu_start(h);
  alarm(0);
  same_refusal(status, npblu_error_message(h), "rank 0 called npblu_run, rank 1 called npblu_start");
  check(npblu_destroy(&h) == NPBLU_OK, "destroy");
}

static void set_field_nan(void) {
  npblu_solver* h = started("S");
  int64_t count = 0;
  npblu_field_size(h, &count);
  double* u = malloc(sizeof(double) * (size_t)count);
  npblu_get_field(h, u, count);
  if (rank == 1) u[count / 2] = 0.0 / 0.0;
  alarm(5);
  const int status = npblu_set_field(h, u, count);
  alarm(0);
  same_refusal(status, npblu_error_message(h), "on rank 1 is not finite");
  if (rank == 1) u[count / 2] = 1e300;
  alarm(5);
  const int huge = npblu_set_field(h, u, count);
  alarm(0);
  same_refusal(huge, npblu_error_message(h), "is larger than 1e100");
  /* A count or a null array on one rank: named with that rank, not blamed on every rank's own array. */
  alarm(5);
  const int short_count = npblu_set_field(h, u, rank == 1 ? count - 1 : count);
  alarm(0);
  same_refusal(short_count, npblu_error_message(h), "doubles on rank 1, whose part of u is");
  alarm(5);
  const int null_one = npblu_set_field(h, rank == 1 ? NULL : u, count);
  alarm(0);
  same_refusal(null_one, npblu_error_message(h), "npblu_set_field: a null array on rank 1");
  free(u);
  still_usable(h);
}

/* npblu_checkpoint to a FIFO (standing for a device node): refused, the FIFO still a FIFO. */
static void checkpoint_fifo(void) {
  npblu_solver* h = started("S");
  if (rank == 0) {
    unlink("disagree_fifo");
    check(mkfifo("disagree_fifo", 0600) == 0, "mkfifo");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  alarm(5);
  const int status = npblu_checkpoint(h, "disagree_fifo");
  alarm(0);
  same_refusal(status, npblu_error_message(h), "not a regular file");
  struct stat st;
  if (rank == 0) check(stat("disagree_fifo", &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO was replaced");
  if (rank == 0) unlink("disagree_fifo");
  still_usable(h);
}

static void invalid_communicators(void) {
  npblu_solver* h = (npblu_solver*)&h;
  check(npblu_create_f(&h, (MPI_Fint)123456) != NPBLU_OK && h == NULL, "npblu_create_f with an invalid comm");
  /* No handle holds the message: npblu_error_message(NULL) gives this thread's last failed create. */
  check(strstr(npblu_error_message(NULL), "npblu_create: the communicator is not a valid MPI communicator") !=
            NULL,
        "npblu_error_message(NULL) names the failed create's problem");
  check(npblu_create(&h, MPI_COMM_NULL) != NPBLU_OK && h == NULL, "npblu_create with MPI_COMM_NULL");
  check(strstr(npblu_error_message(NULL), "npblu_create: the communicator is MPI_COMM_NULL") != NULL,
        "npblu_error_message(NULL) after MPI_COMM_NULL");
  check(npblu_create(NULL, MPI_COMM_WORLD) == NPBLU_ERROR_ARGUMENT &&
            strstr(npblu_error_message(NULL), "npblu_create: handle is a null pointer") != NULL,
        "npblu_create(NULL, ...)");
  npblu_balancer* b = NULL;
  char message[256] = "";
  check(npblu_balancer_create_f(&b, (MPI_Fint)123456, 20, NULL, NULL, NULL, message, sizeof message) !=
                NPBLU_OK &&
            b == NULL && strstr(message, "not a valid MPI communicator") != NULL,
        "npblu_balancer_create_f with an invalid comm");
  if (rank == 0) printf("invalid communicators: statuses, no abort (%s)\n", message);
  /* The mover: a column of 2^62 bytes is refused, not a crash. */
  check(npblu_balancer_create(&b, MPI_COMM_WORLD, 20, NULL, NULL, NULL, message, sizeof message) == NPBLU_OK,
        "balancer create");
  char old_data[8], new_data[8];
  const void* olds[1] = {old_data};
  void* news[1] = {new_data};
  size_t bytes[1] = {(size_t)1 << 62};
  alarm(5);
  const int status = npblu_balancer_migrate(b, 1, olds, news, bytes, 0);
  alarm(0);
  same_refusal(status, npblu_balancer_error_message(b), "exceeds the address space");
  npblu_balancer_destroy(&b);
}

/* One extra balancer feed on one rank (issue 22): with every = 2, both ranks feed three times, then
 * rank 0 feeds a fourth time (a deciding feed, collective) while rank 1 destroys the balancer. Both
 * calls meet in their agreement first and are refused alike, naming the two calls; nothing is
 * recorded or freed, and the balancer goes on (one more feed each, a decision, then destroy). */
static void balancer_extra_feed(void) {
  npblu_balance_settings s;
  npblu_balance_settings_default(&s);
  s.every = 2;
  s.core_share = 0;
  npblu_balancer* b = NULL;
  check(npblu_balancer_create(&b, MPI_COMM_WORLD, 40, NULL, NULL, &s, NULL, 0) == NPBLU_OK,
        "balancer create");
  int changed = 0;
  for (int i = 0; i < 3; ++i) check(npblu_balancer_feed(b, 1.0, 0.0, &changed) == NPBLU_OK, "feed");
  changed = 7;
  alarm(5);
  const int status = rank == 0 ? npblu_balancer_feed(b, 1.0, 0.0, &changed) : npblu_balancer_destroy(&b);
  alarm(0);
  same_refusal(status, npblu_balancer_error_message(b),
               "rank 0 called npblu_balancer_feed, rank 1 called npblu_balancer_destroy");
  check(b != NULL, "a refused destroy freed the balancer");
  if (rank == 0) check(changed == 0, "a refused feed reported a change");
  int decisions = -1;
  npblu_balancer_totals(b, &decisions, NULL, NULL);
  check(decisions == 1, "the refused feed decided");
  alarm(5);
  check(npblu_balancer_feed(b, 1.0, 0.0, &changed) == NPBLU_OK, "the feed after the refusal");
  npblu_balancer_totals(b, &decisions, NULL, NULL);
  check(decisions == 2, "the feed after the refusal did not decide");
  check(npblu_balancer_destroy(&b) == NPBLU_OK && b == NULL, "destroy after the refusal");
  alarm(0);
}

/* Two different collective balancer calls at once: set_widths on rank 0, migrate on rank 1. Both
 * meet in their agreement first and are refused alike; nothing changes or moves. */
static void balancer_widths_and_migrate(void) {
  npblu_balancer* b = NULL;
  check(npblu_balancer_create(&b, MPI_COMM_WORLD, 20, NULL, NULL, NULL, NULL, 0) == NPBLU_OK,
        "balancer create");
  int widths[2] = {8, 12};
  double old_data[20], new_data[20];
  const void* olds[1] = {old_data};
  void* news[1] = {new_data};
  size_t bytes[1] = {sizeof(double)};
  alarm(5);
  const int status =
      rank == 0 ? npblu_balancer_set_widths(b, widths) : npblu_balancer_migrate(b, 1, olds, news, bytes, 0);
  alarm(0);
  same_refusal(status, npblu_balancer_error_message(b),
               "rank 0 called npblu_balancer_set_widths, rank 1 called npblu_balancer_migrate");
  int cuts[3];
  npblu_balancer_cuts(b, cuts);
  check(cuts[1] == 10, "a refused set_widths changed the partition");
  alarm(5);
  check(npblu_balancer_set_widths(b, widths) == NPBLU_OK, "set_widths after the refusal");
  check(npblu_balancer_destroy(&b) == NPBLU_OK && b == NULL, "destroy after the refusal");
  alarm(0);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  signal(SIGALRM, SIG_DFL); /* a hang ends the test */
  const char* c = argc > 1 ? argv[1] : "";
  if (!strcmp(c, "advance_negative_one_rank"))
    advance_values(rank == 1 ? -1 : 3, "rank 1 passed other arguments than rank 0");
  else if (!strcmp(c, "advance_5_and_3"))
    advance_values(
        rank == 0 ? 5 : 3,
        "rank 1 passed other arguments than rank 0: iterations is '5' on rank 0 and '3' on rank 1");
  else if (!strcmp(c, "checkpoint_empty_one_rank"))
    checkpoint_empty_one_rank();
  else if (!strcmp(c, "class_rank0_only"))
    start_config(class_rank0_only,
                 "rank 1 passed other arguments than rank 0: class is 'S' on rank 0 and '' on rank 1");
  else if (!strcmp(c, "class_s_and_w"))
    start_config(class_s_and_w,
                 "rank 1 passed other arguments than rank 0: class is 'S' on rank 0 and 'W' on rank 1");
  else if (!strcmp(c, "diffusive_rank0_only"))
    start_config(
        diffusive_rank0_only,
        "rank 1 passed other arguments than rank 0: balance is 'diffusive' on rank 0 and 'static' on rank 1");
  else if (!strcmp(c, "columns_differ"))
    start_config(columns_differ,
                 "rank 1 passed other arguments than rank 0: columns is '5,5' on rank 0 and '4,6' on rank 1");
  else if (!strcmp(c, "result_buffers_one_rank"))
    result_buffers_one_rank();
  else if (!strcmp(c, "set_field_rank0_only"))
    set_field_rank0_only();
  else if (!strcmp(c, "run_and_start"))
    run_and_start();
  else if (!strcmp(c, "set_field_nan"))
    set_field_nan();
  else if (!strcmp(c, "checkpoint_fifo"))
    checkpoint_fifo();
  else if (!strcmp(c, "invalid_communicators"))
    invalid_communicators();
  else if (!strcmp(c, "balancer_extra_feed"))
    balancer_extra_feed();
  else if (!strcmp(c, "balancer_widths_and_migrate"))
    balancer_widths_and_migrate();
  else {
    if (rank == 0) fprintf(stderr, "unknown case '%s'\n", c);
    failures = 1;
  }
  int any = 0;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  if (rank == 0) printf("%s: %s\n", c, any ? "FAILED" : "passed");
  return any ? 1 : 0;
}
