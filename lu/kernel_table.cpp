// One level's KernelTable (compiled per level; see lu/kernel_levels.hpp).
#include "lu/kernel_levels.hpp"
#include "lu/simd.hpp"

#ifndef NPBLU_KERNEL_NS
#error "lu/kernel_table.cpp is compiled per instruction-set level, with NPBLU_KERNEL_NS set"
#endif

NPBLU_DECLARE_KERNEL_TABLE(NPBLU_KERNEL_NS)

namespace npblu::NPBLU_KERNEL_NS {
const KernelTable kernel_table{
    &lower_sweep, &upper_sweep, &sweep_workspace_doubles, &compute_residual, &residual_scratch_doubles,
    simd::kW};
}  // namespace npblu::NPBLU_KERNEL_NS
