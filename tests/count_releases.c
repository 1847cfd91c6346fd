/* Test-only: counts npblu_release calls (the Fortran finalizer's) by
 * interposing the symbol in the test executable and forwarding to the
 * library's, so fortran_finalizer can check that the finalizer ran. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <stddef.h>

#include "npblu.h"

static int releases = 0; /* one test process, one counter */

int npblu_release(npblu_solver** handle) {
  int (*library_release)(npblu_solver**) = (int (*)(npblu_solver**))dlsym(RTLD_NEXT, "npblu_release");
  if (handle && *handle) ++releases;
  return library_release ? library_release(handle) : NPBLU_ERROR_RUN;
}

int npblu_test_releases_counted(void) { return releases; }
