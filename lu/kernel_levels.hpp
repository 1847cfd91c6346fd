#pragma once
// The hot kernels, compiled once per instruction-set level (lu/isa.hpp).
//
// lu/sweeps.cpp (with lu/sweep_planes.cpp and lu/sweep_hyperplanes.cpp), lu/residual.cpp,
// lu/row_update.cpp and lu/kernel_table.cpp are compiled into one object library per level (CMakeLists.txt:
// -march=x86-64, x86-64-v3, x86-64-v4), each with NPBLU_KERNEL_NS set to its own namespace
// (npblu::level_baseline, level_v3, level_v4), so that nothing with external
// linkage is shared between levels: an inline function compiled for AVX-512
// must never be the copy the linker keeps for a baseline caller (the test
// kernel_levels_share_nothing checks the objects). Each level exports one
// KernelTable; lu/kernel_dispatch.cpp picks one at the first call.
#include <cstddef>

#include "lu/coefficients.hpp"
#include "lu/field.hpp"
#include "lu/sweeps.hpp"

#if defined(__x86_64__) || defined(_M_X64)
#define NPBLU_KERNELS_X86 1
#else
#define NPBLU_KERNELS_X86 0
#endif

namespace npblu {

/// The kernels of one level. Workspaces are sized by the level (its vector
/// width sets the row blocking) and passed as raw storage.
struct KernelTable {
  using Sweep = void (*)(const Coefficients&, const GridSize&, ColumnRange, Field5& u, Field5& rsd,
                         double* blocks, std::size_t block_doubles, SweepTimes&, SweepNeighbours&);
  using Residual = void (*)(const Coefficients&, const GridSize&, ColumnRange, const Field5& u,
                            const Field5& frct, Field5& rsd, double* scratch);
  using Doubles = std::size_t (*)(const GridSize&);
  Sweep lower_sweep;
  Sweep upper_sweep;
  Doubles sweep_workspace_doubles;
  Residual compute_residual;
  Doubles residual_scratch_doubles;
  int lanes;  // the level's vector width (simd::kW): the planes of a hyperplane block
};

}  // namespace npblu

#define NPBLU_DECLARE_KERNEL_TABLE(ns)   \
  namespace npblu::ns {                  \
  extern const KernelTable kernel_table; \
  }

#ifdef NPBLU_KERNEL_NS
// Inside a level's object library: that level's kernels.
namespace npblu::NPBLU_KERNEL_NS {
void lower_sweep(const Coefficients& c, const GridSize& g, ColumnRange owned, Field5& u, Field5& rsd,
                 double* blocks, std::size_t block_doubles, SweepTimes& times, SweepNeighbours& neighbours);
void upper_sweep(const Coefficients& c, const GridSize& g, ColumnRange owned, Field5& u, Field5& rsd,
                 double* blocks, std::size_t block_doubles, SweepTimes& times, SweepNeighbours& neighbours);
std::size_t sweep_workspace_doubles(const GridSize& g);
void compute_residual(const Coefficients& c, const GridSize& g, ColumnRange owned, const Field5& u,
                      const Field5& frct, Field5& rsd, double* scratch);
std::size_t residual_scratch_doubles(const GridSize& g);
}  // namespace npblu::NPBLU_KERNEL_NS
#endif
