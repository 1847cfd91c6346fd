// The sweeps' entry points at one level: the stripe goes by hyperplanes
// (lu/sweep_hyperplanes.cpp) when it is wide enough to keep their lanes
// busy, plane by plane (lu/sweep_planes.cpp) when it is not. Both compute
// the same bits, so the choice never changes a result.
#include <algorithm>

#include "lu/kernel_levels.hpp"
#include "lu/simd.hpp"
#include "lu/sweep_kernels.hpp"

namespace npblu::NPBLU_KERNEL_NS {

namespace {

/// A block of kW planes takes width + kW - 1 steps, its lanes busy on width
/// of them: below kMinHyperplaneRows (lu/sweeps.hpp) the plane-by-plane
/// kernel, whose lanes never idle, is the faster (Xeon, before / after in
/// whole runs: stripes of 2 rows by hyperplanes 0.55-0.65, of 15 at 4 lanes
/// 0.94, of 31 at 8 lanes 1.13; docs/performance.md).
bool by_hyperplanes(const SweepCall& call) {
  return sweeps_by_hyperplanes(call.owned.width(), call.g.nz - 2, call.neighbours.pipeline_ranks(), simd::kW);
}

}  // namespace

std::size_t sweep_workspace_doubles(const GridSize& g) {
  return std::max(sweep_by_planes_doubles(g), sweep_by_hyperplanes_doubles(g));
}

void lower_sweep(const Coefficients& c, const GridSize& g, ColumnRange owned, Field5& u, Field5& rsd,
                 double* blocks, std::size_t block_doubles, SweepTimes& times, SweepNeighbours& neighbours) {
  const SweepCall call{c, g, owned, u, rsd, blocks, block_doubles, times, neighbours};
  by_hyperplanes(call) ? lower_sweep_by_hyperplanes(call) : lower_sweep_by_planes(call);
}

void upper_sweep(const Coefficients& c, const GridSize& g, ColumnRange owned, Field5& u, Field5& rsd,
                 double* blocks, std::size_t block_doubles, SweepTimes& times, SweepNeighbours& neighbours) {
  const SweepCall call{c, g, owned, u, rsd, blocks, block_doubles, times, neighbours};
  by_hyperplanes(call) ? upper_sweep_by_hyperplanes(call) : upper_sweep_by_planes(call);
}

}  // namespace npblu::NPBLU_KERNEL_NS
