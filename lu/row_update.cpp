// See lu/row_update.hpp. Built with -ffp-contract=off at every level.
#include "lu/row_update.hpp"

#include "lu/field.hpp"

namespace npblu::NPBLU_KERNEL_NS {

namespace {
constexpr int kM = Field5::kComponents;
}

void add_scaled_row_interior(double* __restrict u_row, const double* __restrict rsd_row, int nx,
                             double factor) {
  for (int p = kM; p < kM * (nx - 1); ++p) u_row[p] += factor * rsd_row[p];
}

}  // namespace npblu::NPBLU_KERNEL_NS
