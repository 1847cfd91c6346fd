/* npblu_common.h: what npblu.h (the solver) and npblu_balance.h (the
 * standalone balance library) share: MPI's C API, the export macro and the
 * status codes every function returns. Included by both; a program using
 * only the balance library includes npblu_balance.h alone.
 */
#ifndef NPBLU_COMMON_H
#define NPBLU_COMMON_H

/* Only MPI's C API is needed: keep the deprecated C++ bindings (and their
 * link dependency) out of C++ callers. */
#if defined(__cplusplus) && !defined(OMPI_SKIP_MPICXX)
#define OMPI_SKIP_MPICXX 1
#endif
#if defined(__cplusplus) && !defined(MPICH_SKIP_MPICXX)
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

/* The libraries export only what the headers declare NPBLU_API: they are
 * built with hidden visibility, and these are the exceptions. */
#if defined(_WIN32)
#define NPBLU_API
#elif defined(__GNUC__) || defined(__clang__)
#define NPBLU_API __attribute__((visibility("default")))
#else
#define NPBLU_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum npblu_status {
  NPBLU_OK = 0,
  NPBLU_ERROR_ARGUMENT = 1,  /* a bad argument: null pointer, unknown class or option, bad value */
  NPBLU_ERROR_RUN = 2,       /* the run could not start (bad combination, too many ranks, I/O, memory)
                                or failed after it started (a trace or report write); on every rank */
  NPBLU_ERROR_NO_RESULT = 3, /* a result was asked for before a successful npblu_run (or npblu_finish) */
  NPBLU_ERROR_ORDER = 4      /* a call out of order: npblu_advance before npblu_start, npblu_start twice,
                                npblu_run while a stepped run is open, ... (the handle is unchanged) */
};

#ifdef __cplusplus
}
#endif

#endif /* NPBLU_COMMON_H */
