#pragma once
// NPB's two whole-field SSOR updates (rsd *= dt before the lower sweep,
// u += rsd / (omega (2 - omega)) after the upper one), one (k, j) row at a
// time, so that the sweep kernels apply them while the row is in cache.
// Compiled per level (lu/kernel_levels.hpp) at the level's width, but never
// contracted into FMA (CMakeLists.txt): u + factor * r rounds the product and
// the sum at every level, as a whole-field pass compiled for baseline x86-64
// does, so this step gives the same bits at every level.
#ifndef NPBLU_KERNEL_NS
#error "lu/row_update.hpp belongs to the per-level kernels (NPBLU_KERNEL_NS)"
#endif

namespace npblu::NPBLU_KERNEL_NS {

/// rsd *= dt on the interior points (i = 1 .. nx-2) of one row.
void scale_row_interior(double* rsd_row, int nx, double dt);

/// u += factor * rsd on the interior points of one row.
void add_scaled_row_interior(double* u_row, const double* rsd_row, int nx, double factor);

}  // namespace npblu::NPBLU_KERNEL_NS
