// The sweeps' entry points at one level: the stripe goes by hyperplanes
// (lu/sweep_hyperplanes.cpp) where they pay for the pipeline's longer wait,
// plane by plane (lu/sweep_planes.cpp) where they do not. Both compute the
// same bits, so the choice never changes a result.
#include <algorithm>

#include "lu/kernel_levels.hpp"
#include "lu/simd.hpp"
#include "lu/sweep_kernels.hpp"

namespace npblu::NPBLU_KERNEL_NS {

namespace {

/// By hyperplanes where they pay for the pipeline's longer wait
/// (sweeps_by_hyperplanes, lu/sweeps.hpp), plane by plane elsewhere.
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
