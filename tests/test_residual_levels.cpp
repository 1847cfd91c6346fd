// compute_residual at every instruction-set level this CPU has, on rows of
// every width modulo the vector widths (2, 4, 8). The kernels compute whole
// aligned vectors past both ends of a row, on padding and on what lies before
// a lane (lu/residual.cpp, computed_end): none of that may reach an interior
// point or an entry outside the interior. The scratch starts as NaN, so a
// stray read of unwritten scratch shows; v3 and v4, whose padding differs,
// must agree bit for bit; baseline (no FMA) agrees to rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "lu/coefficients.hpp"
#include "lu/initial_state.hpp"
#include "lu/isa.hpp"
#include "lu/kernel_levels.hpp"

#if NPBLU_KERNELS_X86
NPBLU_DECLARE_KERNEL_TABLE(level_baseline)
NPBLU_DECLARE_KERNEL_TABLE(level_v3)
NPBLU_DECLARE_KERNEL_TABLE(level_v4)
#endif

using namespace npblu;

namespace {

#if NPBLU_KERNELS_X86
const KernelTable& table_for(IsaLevel level) {
  switch (level) {
    case IsaLevel::v3:
      return level_v3::kernel_table;
    case IsaLevel::v4:
      return level_v4::kernel_table;
    default:
      return level_baseline::kernel_table;
  }
}

constexpr double kUntouched = 1234.5;

bool interior(const GridSize& g, int i, int k) { return i >= 1 && i < g.nx - 1 && k >= 1 && k < g.nz - 1; }

/// rsd of the initial state (frct = 0) at `level`, computed in a scratch of
/// NaN and into an rsd of kUntouched; checks the entries it must not touch.
Field5 residual_at(IsaLevel level, const GridSize& g) {
  const auto c = Coefficients::make(g, 0.5);
  const ColumnRange owned = g.interior_columns();
  Field5 u(g.nx, g.nz, stored_columns(g, owned, kStateHalo));
  set_boundary_values(c, g, u);
  set_initial_values(c, g, u);
  const Field5 frct(g.nx, g.nz, owned);
  Field5 rsd(g.nx, g.nz, owned);
  for (std::size_t n = 0; n < rsd.size(); ++n) rsd.data()[n] = kUntouched;
  const KernelTable& table = table_for(level);
  std::vector<double> scratch(table.residual_scratch_doubles(g), std::numeric_limits<double>::quiet_NaN());
  table.compute_residual(c, g, owned, u, frct, rsd, scratch.data());
  for (int j = owned.begin; j < owned.end; ++j)
    for (int k = 0; k < g.nz; ++k)
      for (int i = 0; i < g.nx; ++i)
        for (int m = 0; m < 5; ++m) {
          const double v = rsd.point(i, k, j)[m];
          if (interior(g, i, k))
            EXPECT_TRUE(std::isfinite(v)) << isa_name(level) << " nx " << g.nx << " i " << i << " k " << k;
          else
            EXPECT_EQ(v, kUntouched) << isa_name(level) << " nx " << g.nx << " i " << i << " k " << k;
        }
  return rsd;
}

bool supported(IsaLevel level) {
  for (IsaLevel l : isa_levels_supported())
    if (l == level) return true;
  return false;
}
#endif

}  // namespace

TEST(ResidualLevels, RowsOfEveryWidthModuloTheVectors) {
#if !NPBLU_KERNELS_X86
  GTEST_SKIP() << "one level only on this architecture";
#else
  for (int nx = 5; nx <= 21; ++nx) {
    const GridSize g{nx, 7, 6};
    const Field5 baseline = residual_at(IsaLevel::baseline, g);
    const std::size_t n = baseline.size();
    double scale = 0.0;
    for (std::size_t p = 0; p < n; ++p) scale = std::max(scale, std::abs(baseline.data()[p]));
    std::vector<Field5> fma;
    for (IsaLevel level : {IsaLevel::v3, IsaLevel::v4}) {
      if (!supported(level)) continue;
      fma.push_back(residual_at(level, g));
      for (std::size_t p = 0; p < n; ++p)
        ASSERT_NEAR(fma.back().data()[p], baseline.data()[p], 1e-12 * scale)
            << isa_name(level) << " nx " << nx;
    }
    if (fma.size() == 2) {
      EXPECT_EQ(std::memcmp(fma[0].data(), fma[1].data(), n * sizeof(double)), 0) << "v3 and v4, nx " << nx;
    }
  }
#endif
}
