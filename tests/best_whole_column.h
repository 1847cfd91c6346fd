/* An oracle for the C balance API's quality test (tests/balance_quality_api.c), apart from the
 * library's own (balance/min_max_partition): the best whole-column partition's slowest rank. */
#ifndef NPBLU_TESTS_BEST_WHOLE_COLUMN_H
#define NPBLU_TESTS_BEST_WHOLE_COLUMN_H

#include <math.h>

/* The least time T per iteration at which `ranks` ranks with per-column costs cost[0..ranks-1],
 * each taking floor(T / cost) columns (at least min_width), hold all `columns`: the slowest rank
 * of the best whole-column partition. T is one of the w * cost[r]. */
static inline double best_whole_column(const double* cost, int ranks, int columns, int min_width) {
  double best = INFINITY;
  for (int r = 0; r < ranks; ++r)
    for (int w = min_width; w <= columns; ++w) {
      const double t = w * cost[r];
      int room = 0, fits = 1;
      for (int q = 0; q < ranks; ++q) {
        const int most = (int)floor(t / cost[q] * (1 + 1e-12));
        fits = fits && most >= min_width;
        room += most;
      }
      if (fits && room >= columns && t < best) best = t;
    }
  return best;
}

#endif
