// The kernels' public entry points (lu/sweeps.hpp, lu/residual.hpp): each
// forwards to the level chosen once per process (lu/isa.hpp).
#include <stdexcept>

#include "lu/isa.hpp"
#include "lu/kernel_levels.hpp"
#include "lu/residual.hpp"
#include "lu/sweeps.hpp"

#if NPBLU_KERNELS_X86
NPBLU_DECLARE_KERNEL_TABLE(level_baseline)
NPBLU_DECLARE_KERNEL_TABLE(level_v3)
NPBLU_DECLARE_KERNEL_TABLE(level_v4)
#else
NPBLU_DECLARE_KERNEL_TABLE(level_baseline)
#endif

namespace npblu {

namespace {

const KernelTable& table_for(IsaLevel level) {
#if NPBLU_KERNELS_X86
  switch (level) {
    case IsaLevel::baseline:
      return level_baseline::kernel_table;
    case IsaLevel::v3:
      return level_v3::kernel_table;
    case IsaLevel::v4:
      return level_v4::kernel_table;
  }
  throw std::logic_error("no kernels for this instruction-set level");
#else
  (void)level;
  return level_baseline::kernel_table;
#endif
}

const KernelTable& kernels() {
  static const KernelTable& table = table_for(active_isa());
  return table;
}

}  // namespace

SweepWorkspace::SweepWorkspace(const GridSize& g) : blocks(doubles(g), 0.0) {}

std::size_t SweepWorkspace::doubles(const GridSize& g) { return kernels().sweep_workspace_doubles(g); }

int sweep_lanes() { return kernels().lanes; }

void NoSweepNeighbours::plane_needed(int /*k*/) {}
void NoSweepNeighbours::plane_done(int /*k*/) {}

void lower_sweep(const Coefficients& c, const GridSize& g, ColumnRange owned, Field5& u, Field5& rsd,
                 SweepWorkspace& ws, SweepTimes& times, SweepNeighbours& neighbours) {
  kernels().lower_sweep(c, g, owned, u, rsd, ws.blocks.data(), ws.blocks.size(), times, neighbours);
}

void upper_sweep(const Coefficients& c, const GridSize& g, ColumnRange owned, Field5& u, Field5& rsd,
                 SweepWorkspace& ws, SweepTimes& times, SweepNeighbours& neighbours) {
  kernels().upper_sweep(c, g, owned, u, rsd, ws.blocks.data(), ws.blocks.size(), times, neighbours);
}

ResidualWorkspace::ResidualWorkspace(const GridSize& g, ColumnRange /*owned*/) : scratch_(doubles(g)) {}

std::size_t ResidualWorkspace::doubles(const GridSize& g) { return kernels().residual_scratch_doubles(g); }

void compute_residual(const Coefficients& c, const GridSize& g, ColumnRange owned, const Field5& u,
                      const Field5& frct, Field5& rsd, ResidualWorkspace& ws) {
  // Only a default-constructed workspace, or one made for another grid, grows here.
  const std::size_t need = kernels().residual_scratch_doubles(g);
  if (ws.scratch_.size() < need) ws.scratch_.resize(need);
  kernels().compute_residual(c, g, owned, u, frct, rsd, ws.scratch_.data());
}

}  // namespace npblu
