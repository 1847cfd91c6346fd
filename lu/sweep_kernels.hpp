#pragma once
// The two ways a level sweeps a stripe (lu/sweeps.cpp chooses): plane by
// plane, a row's points in the vector lanes (lu/sweep_planes.cpp), or by
// hyperplanes, a row of kW planes in the lanes (lu/sweep_hyperplanes.cpp).
// Both apply the same formulas (lu/sweep_formulas.hpp) to every point, so
// they compute the same bits. Per level (lu/kernel_levels.hpp).
#ifndef NPBLU_KERNEL_NS
#error "lu/sweep_kernels.hpp belongs to the per-level kernels (NPBLU_KERNEL_NS)"
#endif

#include <cstddef>

#include "lu/coefficients.hpp"
#include "lu/field.hpp"
#include "lu/sampled_split.hpp"
#include "lu/sweeps.hpp"

namespace npblu::NPBLU_KERNEL_NS {

/// One sweep of a stripe: the arguments of lower_sweep and upper_sweep, with
/// the workspace as raw storage.
struct SweepCall {
  const Coefficients& c;
  const GridSize& g;
  ColumnRange owned;
  Field5& u;
  Field5& rsd;
  double* blocks;
  std::size_t block_doubles;
  SweepTimes& times;
  SweepNeighbours& neighbours;
};

/// The parts a sweep's clock splits its seconds into (lu/sampled_split.hpp).
enum SweepPart { kJacobian, kSolve, kUpdate };
using SweepClock = SampledSplit<3>;

/// Adds a sweep's seconds, split by its clock, to the call's times.
inline void record_seconds(const SweepClock& clock, SweepTimes& times) {
  const auto seconds = clock.seconds();
  times.jacobian += seconds[kJacobian];
  times.solve += seconds[kSolve];
  times.update += seconds[kUpdate];
}

// One function a direction, so that a profile (runs/roofline/count_flops.py)
// tells the lower sweep from the upper whatever the compiler inlines.
void lower_sweep_by_planes(const SweepCall& call);
void upper_sweep_by_planes(const SweepCall& call);
[[nodiscard]] std::size_t sweep_by_planes_doubles(const GridSize& g);

void lower_sweep_by_hyperplanes(const SweepCall& call);
void upper_sweep_by_hyperplanes(const SweepCall& call);
[[nodiscard]] std::size_t sweep_by_hyperplanes_doubles(const GridSize& g);

}  // namespace npblu::NPBLU_KERNEL_NS
