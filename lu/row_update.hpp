#pragma once
// NPB's whole-field SSOR update after the upper sweep, u += rsd / (omega (2 -
// omega)), one (k, j) row at a time, so that the sweep kernels apply it while
// the row is in cache. (NPB's other one, rsd *= dt before the lower sweep,
// rides on the lower sweep's loads of rsd in both kernels.) Compiled per level
// (lu/kernel_levels.hpp) at the level's width, but never contracted into FMA
// (CMakeLists.txt): u + factor * r rounds the product and the sum at every
// level, as a whole-field pass compiled for baseline x86-64 does, so this step
// gives the same bits at every level.
#ifndef NPBLU_KERNEL_NS
#error "lu/row_update.hpp belongs to the per-level kernels (NPBLU_KERNEL_NS)"
#endif

namespace npblu::NPBLU_KERNEL_NS {

/// u += factor * rsd on the interior points of one row.
void add_scaled_row_interior(double* u_row, const double* rsd_row, int nx, double factor);

}  // namespace npblu::NPBLU_KERNEL_NS
