/* npblu: the NPB LU benchmark on columnwise stripes, callable from C and
 * (through the npblu Fortran module) from Fortran.
 *
 * Every function returns NPBLU_OK (0) or an error code; the handle keeps a
 * message for the last error (npblu_error_message). Bad arguments never
 * abort the caller's program. All functions taking a handle are collective
 * over the handle's communicator where they say so.
 *
 * Every collective call first checks that every rank made the same call with the same arguments (one
 * small all-reduce of a digest; file names are rank 0's, which reads and writes the files, so only
 * whether one is given must agree): if not, every rank returns NPBLU_ERROR_ARGUMENT with the same
 * message naming the rank that differs, and nothing is done. An invalid communicator gives a status.
 *
 * The library talks on its own duplicate of the communicator given to
 * npblu_create (MPI_Comm_dup there, MPI_Comm_free at npblu_destroy, so both
 * are collective): the caller's own messages and pending receives on its
 * communicator, even MPI_ANY_SOURCE/MPI_ANY_TAG ones, never meet ours.
 */
#ifndef NPBLU_H
#define NPBLU_H

#include <stdint.h>

#include "npblu_common.h" /* MPI, NPBLU_API, the status codes */

/* The version of this header and of the library (npblu_version gives the
 * library's). CMake's project(VERSION) is read from these three lines. */
#define NPBLU_VERSION_MAJOR 0
#define NPBLU_VERSION_MINOR 1
#define NPBLU_VERSION_PATCH 0

#ifdef __cplusplus
extern "C" {
#endif

typedef struct npblu_solver npblu_solver;

/* The library's version; any pointer may be NULL. */
NPBLU_API int npblu_version(int* major, int* minor, int* patch);

/* The instruction-set level the solver's kernels run at in this process: "baseline" (x86-64),
 * "v3" (x86-64-v3: AVX2+FMA) or "v4" (x86-64-v4: AVX-512). The highest this CPU has, unless the
 * environment variable NPBLU_ISA names one (baseline, v3, v4 or auto); chosen at the first call into
 * the solver, then fixed. At one level the library computes the same bits as the lu command (the same
 * field_checksum); v3 and v4 (FMA) give the same bits, baseline (no FMA) others that also verify. Copies the
 * name, NUL-terminated and cut to length-1 characters, into buf (buf may be NULL when length is 0). Returns
 * NPBLU_OK, or NPBLU_ERROR_RUN when NPBLU_ISA is refused (not a level, or one this CPU lacks): buf then holds
 * the reason, and npblu_run and npblu_start refuse with the same message. Not collective;
 * NPBLU_ERROR_ARGUMENT for length < 0. */
NPBLU_API int npblu_isa(char* buf, int length);

/* Collective: creates a handle on a duplicate of a communicator (C handle, or Fortran integer handle). */
NPBLU_API int npblu_create(npblu_solver** handle, MPI_Comm comm);
NPBLU_API int npblu_create_f(npblu_solver** handle, MPI_Fint fortran_comm);
/* Collective: destroys the handle and frees its communicator; *handle becomes NULL. */
NPBLU_API int npblu_destroy(npblu_solver** handle);
/* NOT collective, for finalizers and error paths on one rank: frees the handle's memory but not its
 * communicator (MPI_Comm_free is collective), which stays allocated until MPI_Finalize; calls no MPI
 * function, so it is safe after MPI_Finalize. *handle becomes NULL; NULL is a no-op. Prefer
 * npblu_destroy. */
NPBLU_API int npblu_release(npblu_solver** handle);

/* The problem: an NPB class letter (S W A B C D E F), or explicit sizes (class U). */
NPBLU_API int npblu_set_class(npblu_solver* handle, char problem_class);
/* For the Fortran module: npblu_set_class of a whole string (one letter; "SX" and "" are refused by
 * name, as npblu_set_class, never read as their first letter). */
NPBLU_API int npblu_set_class_fn(npblu_solver* handle, const char* problem_class);
NPBLU_API int npblu_set_size(npblu_solver* handle, int nx, int ny, int nz, int iterations, double dt);
/* Any option of the lu command line, without its dashes: "balance" "diffusive", "weights" "2,1",
 * "emulate-speeds" "1,0.5", "trace" "run.h5", "trace-overwrite" "", "columns" "3,5,2", "quiet" "",
 * "json" "r.json", "balance-every" "5", ... Converted and checked at the call: an unknown name or a
 * bad value returns NPBLU_ERROR_ARGUMENT (and leaves the handle as it was). Flags ("quiet",
 * "trace-overwrite") take "" or NULL, "1"/"0", "true"/"false", "yes"/"no", "on"/"off". Combinations
 * (an option of another mode, --columns with --weights) are checked by npblu_run. */
NPBLU_API int npblu_set_option(npblu_solver* handle, const char* name, const char* value);
/* Whether rank 0 prints the NPB report to stdout (default 1). */
NPBLU_API int npblu_set_report(npblu_solver* handle, int print);

/* Collective: runs the benchmark. NPBLU_OK means it ran; ask npblu_verified whether it verified. */
NPBLU_API int npblu_run(npblu_solver* handle);

/* Results of the last run (the same on every rank unless noted). */
NPBLU_API int npblu_time(const npblu_solver* handle, double* seconds);
NPBLU_API int npblu_mops(const npblu_solver* handle, double* mops);
NPBLU_API int npblu_verified(const npblu_solver* handle, int* verified); /* 1 verified, 0 not (or class U) */
NPBLU_API int npblu_residual_norms(const npblu_solver* handle, double norms[5]);
NPBLU_API int npblu_error_norms(const npblu_solver* handle, double norms[5]);
NPBLU_API int npblu_surface_integral(const npblu_solver* handle, double* value);
NPBLU_API int npblu_imbalance(const npblu_solver* handle, double* factor);
/* This rank's columns [*begin, *end) (0-based global j; the Fortran module gives them 1-based and
 * inclusive): the current ones during a stepped run (the balancer may move them at any npblu_advance),
 * the final ones after npblu_run or npblu_finish. */
NPBLU_API int npblu_columns(const npblu_solver* handle, int* begin, int* end);

/* ---- The run in steps ----
 * npblu_start + npblu_advance(n1) + npblu_advance(n2) + ... + npblu_finish computes exactly what
 * npblu_run does, bit for bit, however the iterations are split (balancing, tracing and the report
 * work as in a full run). All five are collective. A call out of order returns NPBLU_ERROR_ORDER and
 * changes nothing. A stepped run stays open (its field readable) until the next npblu_start,
 * npblu_run or npblu_destroy. */
/* Checks the configuration as npblu_run does (same errors), then sets up: placement, the solver, the
 * balancer and trace, NPB's warm-up iteration and reset. Ready for timed iteration 1. */
NPBLU_API int npblu_start(npblu_solver* handle);
/* Up to `iterations` (>= 0) more timed iterations (fewer at the run's last one); *ran (may be NULL)
 * gets how many ran. */
NPBLU_API int npblu_advance(npblu_solver* handle, int iterations, int* ran);
/* Timed iterations done since npblu_start, and the run's total (either pointer may be NULL). */
NPBLU_API int npblu_iterations_done(const npblu_solver* handle, int* done, int* total);
/* The RMS norms of the current steady-state residual (reading them changes nothing). */
NPBLU_API int npblu_current_residual_norms(npblu_solver* handle, double norms[5]);
/* Error norms, surface integral, verification and the report of the iterations run (a run finished
 * early does not verify); then the result getters answer as after npblu_run. */
NPBLU_API int npblu_finish(npblu_solver* handle);

/* ---- The solution field u of a started run ----
 * Layout: this rank's columns of u, as the solver stores them (Fortran order, first index fastest):
 *   u(5, nx, nz, jbegin:jend)   (C: u[j - begin][k][i][m], m in [0,5), i in [0,nx), k in [0,nz))
 * with every i and k of the grid (boundary points included) and the rank's columns j (npblu_columns;
 * the boundary columns j = 0 and ny-1, fixed by the boundary conditions, belong to no rank). The
 * column index is last because the solver stripes by columns: each column is contiguous, so a rank's
 * part is one block of 5*nx*nz*(end-begin) doubles (copied with one memcpy) and a caller's
 * column-striped array is contiguous too; NPB's u(5, i, j, k) would make a j stripe a strided one. */
/* The problem's grid (any pointer may be NULL). */
NPBLU_API int npblu_grid(const npblu_solver* handle, int* nx, int* ny, int* nz);
/* Doubles in this rank's part of u: 5 * nx * nz * (end - begin). */
NPBLU_API int npblu_field_size(const npblu_solver* handle, int64_t* count);
/* Copies this rank's part of u into u (count doubles: must equal npblu_field_size). Not collective;
 * any time after npblu_start, also after npblu_finish. */
NPBLU_API int npblu_get_field(const npblu_solver* handle, double* u, int64_t count);
/* Collective: sets this rank's part of u from u (count must equal npblu_field_size on every rank, and
 * every value be finite and at most 1e100 in magnitude, or nothing is written on any rank), then refreshes
 * the halos and the residual the next iteration starts from. Between npblu_start and npblu_finish. */
NPBLU_API int npblu_set_field(npblu_solver* handle, const double* u, int64_t count);
/* Collective: the hex digest of the whole u (the report's field_checksum: it depends only on the
 * values, not on the partition), on every rank, into buf (length >= 17). Of the open stepped run's
 * current field, or else of the last npblu_run's final one. */
NPBLU_API int npblu_field_checksum(npblu_solver* handle, char* buf, int length);

/* The message of the last error on this handle ("" if none). With NULL: the message of this thread's
 * last failed npblu_create (which leaves no handle), "null handle" if none failed. */
NPBLU_API const char* npblu_error_message(const npblu_solver* handle);
/* The same copied into buf (NUL-terminated, truncated to length); for Fortran. */
NPBLU_API int npblu_copy_error_message(const npblu_solver* handle, char* buf, int length);
/* A fixed description of a status code. */
NPBLU_API const char* npblu_status_string(int status);

/* Checkpoint and restart (README, "Checkpoint and restart"). A run writes
 * checkpoints as the options say: npblu_set_option(h, "checkpoint", "run.h5")
 * with "checkpoint-every" "N" (npblu_run then also stops on SIGTERM/SIGINT
 * after writing one, returning NPBLU_ERROR_RUN), and continues one with
 * npblu_set_option(h, "restart", "run.h5") (the class or size may then be
 * omitted: the checkpoint's is taken). npblu_checkpoint writes one now:
 * collective, valid between the calls of a run in steps (after its start,
 * before its last iteration: a complete run has nothing to continue);
 * NPBLU_ERROR_RUN otherwise or when the write fails
 * (the previous file at `path` is then untouched). A run in steps writes
 * checkpoints only when asked by npblu_checkpoint ("checkpoint-every" and
 * the signals are npblu_run's): the caller chooses when between its steps. */
NPBLU_API int npblu_checkpoint(npblu_solver* handle, const char* path);

#ifdef __cplusplus
}
#endif

#include "npblu_balance.h" /* the balancer on the caller's own arrays: one include gives everything */

#endif /* NPBLU_H */
