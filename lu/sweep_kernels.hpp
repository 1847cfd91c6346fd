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
#include <cstdint>

#include "lu/coefficients.hpp"
#include "lu/field.hpp"
#include "lu/sampled_split.hpp"
#include "lu/simd_points.hpp"
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

// What both kernels use besides the formulas (internal linkage, as in
// lu/sweep_formulas.hpp, so that GCC inlines it into the kernels' loops).
namespace {

/// The first 64-byte boundary at or after p: the workspace's vectors start
/// there.
inline double* aligned_64(double* p) {
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  return p + ((64 - addr % 64) % 64) / sizeof(double);
}

/// A point's fill, repeated for the kW points of a group.
struct GroupFill {
  double d[Field5::kComponents * simd::kW];
  constexpr explicit GroupFill(double first) : d{} {
    for (int i = 0; i < Field5::kComponents * simd::kW; ++i)
      d[i] = i % Field5::kComponents == 0 ? first : 0.0;
  }
};
constexpr GroupFill kStateFill(1.0);  // a state: density 1, at rest
constexpr GroupFill kZeroFill(0.0);

/// The components of the kW points from `first` (>= 0) of a row of nx
/// points; points past the row's end read `fill`.
inline void load_group(const double* row, int nx, int first, const GroupFill& fill, simd::vd out[]) {
  constexpr int kM = Field5::kComponents;
  if (first + simd::kW <= nx) {
    simd::load_points(row + kM * first, out);
    return;
  }
  simd::load_points_masked(row + kM * first, kM * (nx - first), fill.d, out);
}

}  // namespace

/// The parts a sweep's clock splits its seconds into (lu/sampled_split.hpp).
enum SweepPart { kJacobian, kSolve, kUpdate };
using SweepClock = SampledSplit<3>;

/// Calls the neighbours (tell) with the clock paused: their time (waits,
/// messages) is not the sweep's.
template <class Tell>
void untimed(SweepClock& clock, Tell&& tell) {
  clock.pause();
  tell();
  clock.resume();
}

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
