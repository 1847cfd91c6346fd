/* npblu_balance: the solver's partitioning and run-time balancer on the
 * caller's own column-striped arrays (C API; Fortran: module npblu_balance
 * and the NPBLU_BAL_* external subroutines).
 *
 * Columns. The caller's problem has `columns` columns, numbered 0..columns-1
 * here (the Fortran bindings number them 1..columns). Every rank owns one
 * contiguous range [begin, end), ranks in rank order, every range at least
 * min_width columns wide. Ranges are 0-based and half-open in C; the
 * Fortran bindings give 1-based inclusive first:last.
 *
 * Errors. Every function returns NPBLU_OK (0) or an npblu_status code
 * (npblu_common.h); functions on a balancer keep the message of its last error
 * (npblu_balancer_error_message). Bad input is NPBLU_ERROR_ARGUMENT, a
 * failure of MPI or memory NPBLU_ERROR_RUN (the same map as npblu.h's
 * calls). Functions marked collective give every rank of the balancer's
 * communicator the same status and message: each first checks that every
 * rank made the same call with the same arguments (one small all-reduce),
 * and otherwise returns NPBLU_ERROR_ARGUMENT on every rank with one message
 * naming the rank that differs and both calls, having done nothing (the
 * balancer stays usable). Nothing here aborts the caller's program.
 *
 * The balancer decides with exactly the code the solver's own run-time
 * balancer uses (balance/diffusive_balancer, fed through the same window
 * summary and all-gather), and talks on its own duplicate of the caller's
 * communicator (created collectively, freed by npblu_balancer_destroy).
 */
#ifndef NPBLU_BALANCE_H
#define NPBLU_BALANCE_H

#include <stddef.h>

#include "npblu_common.h" /* MPI, NPBLU_API, the status codes */

#ifdef __cplusplus
extern "C" {
#endif

/* Settings of the diffusive balancer (the lu command's --balance-* options).
 * A decision moves columns only when the gain it can count on (at the
 * estimated per-column costs, net of their uncertainty from the spread and
 * correlation of the fed times) over the run's horizon exceeds the price of
 * a step (the measured time of npblu_balancer_migrate calls after the last
 * change; before any was timed, 10 ms or one iteration, whichever is more:
 * a first migration writes the caller's arrays into memory it may never
 * have touched, page by page). This API is not told how long the run goes
 * on: after n feeds the horizon is n more feeds. */
typedef struct npblu_balance_settings {
  int every;        /* feeds per decision (default 5) */
  double threshold; /* wait gap, as a fraction of an iteration, that must confirm an imbalance (0.02) */
  double damping;   /* in (0, 1]: the one fraction of the way to the target every boundary moves (1) */
  int min_width;    /* narrowest range a rank may own (2; at least 1) */
  int persistence;  /* windows of evidence about the current ranges before they move again (1) */
  int core_share;   /* 1: read each rank's share of its core from the run-queue clock (Linux
                       schedstat) between feeds, as the solver does (1); 0: the fed times only; others refused */
} npblu_balance_settings;

/* The defaults above. */
NPBLU_API int npblu_balance_settings_default(npblu_balance_settings* settings);

/* Not collective. The placement the solver uses for --weights: ranks get
 * widths proportional to weights[0..ranks-1] (largest remainder, raised to
 * min_width, then the best whole-column split for costs 1/weight), written
 * as cuts[0..ranks]: rank r owns [cuts[r], cuts[r+1]), cuts[0] = 0,
 * cuts[ranks] = columns. NPBLU_ERROR_ARGUMENT for null pointers, a weight
 * that is not positive and finite, min_width < 1, or more ranks than
 * columns / min_width; then, if message is not NULL, a NUL-terminated
 * explanation truncated to length bytes. */
NPBLU_API int npblu_partition_from_weights(int columns, int ranks, const double* weights, int min_width,
                                           int* cuts, char* message, int length);

typedef struct npblu_balancer npblu_balancer;

/* Collective: a balancer of `columns` columns over the ranks of comm
 * (duplicated), starting from explicit widths[0..ranks-1] (summing to
 * columns), or from weights[0..ranks-1] (npblu_partition_from_weights), or
 * equal widths when both are NULL (the remainder one column each to the
 * lowest ranks); settings NULL means the defaults. Every rank must pass the
 * same values (checked). On failure *handle is NULL on every rank and the
 * status is the same everywhere; the message goes to message[length] when
 * not NULL. A setting out of range is NPBLU_ERROR_ARGUMENT with a message
 * naming it, e.g. "every must be at least 1, got 0". */
NPBLU_API int npblu_balancer_create(npblu_balancer** handle, MPI_Comm comm, int columns, const int* widths,
                                    const double* weights, const npblu_balance_settings* settings,
                                    char* message, int length);
/* The same with a Fortran communicator handle. */
NPBLU_API int npblu_balancer_create_f(npblu_balancer** handle, MPI_Fint comm, int columns, const int* widths,
                                      const double* weights, const npblu_balance_settings* settings,
                                      char* message, int length);
/* For the Fortran module: npblu_balancer_create_f with the lengths of the
 * caller's widths and weights (-1: not known), refused (agreed, before either
 * is read) unless they hold one value per rank. */
NPBLU_API int npblu_balancer_create_fn(npblu_balancer** handle, MPI_Fint comm, int columns, const int* widths,
                                       int widths_length, const double* weights, int weights_length,
                                       const npblu_balance_settings* settings, char* message, int length);
/* Collective: frees the balancer and its communicator; *handle becomes NULL.
 * Refused (nothing freed) when another rank made another call, e.g. one more
 * deciding feed. */
NPBLU_API int npblu_balancer_destroy(npblu_balancer** handle);

/* Feeds this rank's seconds of one iteration (or one window): computing,
 * and blocked in MPI (halo exchange, reductions). Every rank feeds equally
 * often; every settings.every-th feed is collective (one all-gather): every
 * rank's fed times of the window go to the diffusive balancer, which may
 * move columns. A deciding feed on one rank while another rank makes
 * another collective call (set_widths, migrate, destroy) is refused alike
 * on every rank, with nothing recorded. Each rank counts its own feeds: one
 * that feeds more often than the others (an extra feed) decides with its
 * window shifted against theirs, which no rank can see. *changed (may be NULL)
 * is 1 when this feed changed the partition (on every rank alike), else 0.
 * After a change the caller moves its data (npblu_balancer_migrate) before
 * the next feed. Unless settings.core_share is 0, the balancer also reads
 * this thread's run-queue clock between feeds (Linux schedstat, where
 * available), as the solver does, so ranks sharing a core are read at
 * their share of it.
 * A negative or non-finite time returns NPBLU_ERROR_ARGUMENT at once on the
 * rank that fed it, and at the next collective feed on every rank (which
 * then decides nothing). */
NPBLU_API int npblu_balancer_feed(npblu_balancer* handle, double compute_seconds, double wait_seconds,
                                  int* changed);

/* Collective: imposes widths[0..ranks-1] (summing to the column count, each
 * at least min_width) as the current partition, as a decision would (the
 * caller's own placement, a restart); migrate then moves the arrays to it.
 * Bad or differing widths: NPBLU_ERROR_ARGUMENT on every rank, nothing changed. */
NPBLU_API int npblu_balancer_set_widths(npblu_balancer* handle, const int* widths);

/* Collective: the most columns each rank may own, max_widths[0..ranks-1]
 * (what each rank's memory holds of the caller's arrays), each at least
 * min_width, adding up to at least the column count; NULL removes the
 * limits. From then on no decision hands a rank more: the target is the best
 * partition within the limits. (A range already wider than its limit is
 * narrowed only when a decision moves columns.) Bad or differing values:
 * NPBLU_ERROR_ARGUMENT on every rank, nothing changed. */
NPBLU_API int npblu_balancer_set_max_widths(npblu_balancer* handle, const int* max_widths);
/* For the Fortran module: the same with the length of the caller's array,
 * refused (agreed, nothing changed) unless it holds one value per rank. */
NPBLU_API int npblu_balancer_set_widths_fn(npblu_balancer* handle, const int* widths, int length);
NPBLU_API int npblu_balancer_set_max_widths_fn(npblu_balancer* handle, const int* max_widths, int length);

/* This rank's current range [*begin, *end); and the one before the last
 * feed (the range the caller's arrays are laid out on until it migrates). */
NPBLU_API int npblu_balancer_columns(const npblu_balancer* handle, int* begin, int* end);
NPBLU_API int npblu_balancer_previous_columns(const npblu_balancer* handle, int* begin, int* end);
/* The current partition as cuts[0..ranks] (see npblu_partition_from_weights); the rank count. */
NPBLU_API int npblu_balancer_cuts(const npblu_balancer* handle, int* cuts);
NPBLU_API int npblu_balancer_ranks(const npblu_balancer* handle, int* ranks);

/* The last decision (every pointer may be NULL): columns moved in all;
 * moves[0..ranks-2], per boundary (r, r+1), columns moved from r to r+1
 * (negative: from r+1 to r); the predicted imbalance (slowest rank's compute
 * over the mean, at the window's measured per-column costs) of the ranges
 * before and after it. Imbalances are 0 before the first decision or when
 * the window held no usable times. */
NPBLU_API int npblu_balancer_last_decision(const npblu_balancer* handle, int* moved_columns, int* moves,
                                           double* imbalance_before, double* imbalance_after);
/* The last decision's balance quality, the bottleneck ratio: the slowest
 * rank's compute at the estimated per-column costs (those the decision
 * used: the fed times since the speeds last changed) over what the best
 * whole-column partition (within min_width and the max widths) would take
 * at the same costs, for the ranges before the decision and after it. 1:
 * no ranges could do better; 1.25: the slowest rank takes a quarter longer
 * than it would on the best ranges. Both 0 before the first decision or
 * when the window held no usable times (either pointer may be NULL). */
NPBLU_API int npblu_balancer_last_quality(const npblu_balancer* handle, double* ratio_before,
                                          double* ratio_after);
/* Totals since creation: decisions taken, decisions that moved columns, columns moved. */
NPBLU_API int npblu_balancer_totals(const npblu_balancer* handle, int* decisions, int* changes,
                                    int* moved_columns);

/* Collective: moves `count` arrays from the ranges in force before the last
 * feed (or npblu_balancer_set_widths) to the current ones (a local copy
 * when that call changed nothing). Array a stores columns contiguously, column_bytes[a] bytes
 * each, with `halo` ghost columns on each side:
 *   old_arrays[a] holds global columns [previous begin - halo, previous end + halo),
 *   new_arrays[a] holds global columns [begin - halo, end + halo)
 * (not clipped at the ends of the domain: the first and last ranks' outer
 * halo columns, e.g. fixed boundary values, are theirs to use), so column
 * j is at byte (j - begin + halo) * column_bytes[a]. The caller allocates
 * the new arrays (npblu_balancer_columns gives their range); they must not
 * overlap the old ones (refused, NPBLU_ERROR_ARGUMENT on every rank). Afterwards every owned column of every new array
 * holds, bitwise, what its old owner held; every halo column the rank
 * stored before as well (owned or halo) keeps that value; the other halo
 * columns are untouched: refresh halos (the caller's exchange) before
 * reading them. May be called once with all arrays or once per array (the
 * same order on every rank), each array once per change: a second call for
 * an array reads its old storage on the previous ranges again, so the
 * already migrated array must not be passed as old (it is read past its
 * end). New storage that overlaps any array's old storage, or another
 * array's new storage in the same call, is refused. count 0 is a no-op. Errors (null arrays,
 * column_bytes 0, halo < 0, ranks passing different count/halo/sizes) are
 * agreed: the same status on every rank, nothing moved. */
NPBLU_API int npblu_balancer_migrate(npblu_balancer* handle, int count, const void* const* old_arrays,
                                     void* const* new_arrays, const size_t* column_bytes, int halo);

/* For the Fortran module: npblu_balancer_migrate of one array, with the
 * columns the caller's old and new arrays store (their last dimension; -1:
 * not known) checked against the previous and current stripes with their
 * halos: a wrong one is refused (agreed), nothing moved. */
NPBLU_API int npblu_balancer_migrate_fn(npblu_balancer* handle, const void* old_array, void* new_array,
                                        size_t column_bytes, int halo, long long old_columns,
                                        long long new_columns);

/* The message of the last error on this balancer ("" if none; "null handle" for NULL). */
NPBLU_API const char* npblu_balancer_error_message(const npblu_balancer* handle);
/* The same copied into buf (NUL-terminated, truncated to length); for Fortran. */
NPBLU_API int npblu_balancer_copy_error_message(const npblu_balancer* handle, char* buf, int length);

#ifdef __cplusplus
}
#endif

#endif /* NPBLU_BALANCE_H */
