// The kernels on one stripe versus the same grid cut into several stripes,
// with the halo copies and the plane-by-plane pipeline of the solver done by
// hand: the fields must agree bit for bit, since the SSOR update order does
// not depend on the partition.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "balance/partition.hpp"
#include "lu/forcing.hpp"
#include "lu/initial_state.hpp"
#include "lu/norms.hpp"
#include "lu/residual.hpp"
#include "lu/sweeps.hpp"

using namespace npblu;

namespace {

struct Stripe {
  ColumnRange owned;
  Field5 u, rsd, frct;
  ResidualWorkspace rws;
  SweepWorkspace sws;
};

/// A stripe in NPB's starting state: forcing, boundary and initial values of u.
Stripe initial_stripe(const GridSize& g, const Coefficients& c, ColumnRange owned) {
  Stripe s{owned,
           Field5(g.nx, g.nz, stored_columns(g, owned, kStateHalo)),
           Field5(g.nx, g.nz, stored_columns(g, owned, kResidualHalo)),
           Field5(g.nx, g.nz, owned),
           ResidualWorkspace(g, owned),
           SweepWorkspace(g)};
  compute_forcing(c, g, owned, s.frct, s.u, s.rsd, s.rws);
  set_boundary_values(c, g, s.u);
  set_initial_values(c, g, s.u);
  return s;
}

class StripedGrid {
 public:
  StripedGrid(GridSize g, double dt, const Partition& p) : g_(g), c_(Coefficients::make(g, dt)) {
    for (const auto& owned : p.ranges()) stripes_.push_back(initial_stripe(g, c_, owned));
  }

  void iterate() {
    exchange_state_halos();
    for (auto& s : stripes_) compute_residual(c_, g_, s.owned, s.u, s.frct, s.rsd, s.rws);
    // The sweeps scale rsd by dt and update u themselves, as in the solver.
    SweepTimes t;
    const int n = static_cast<int>(stripes_.size());
    for (int k = 1; k <= g_.nz - 2; ++k) {
      for (int p = 0; p < n; ++p) {
        auto& s = stripes_[p];
        if (p > 0) copy_row(stripes_[p - 1].rsd, s.rsd, k, s.owned.begin - 1);
        lower_sweep_plane(c_, g_, s.owned, k, s.u, s.rsd, s.sws, t);
      }
    }
    for (int k = g_.nz - 2; k >= 1; --k) {
      for (int p = n - 1; p >= 0; --p) {
        auto& s = stripes_[p];
        if (p + 1 < n) copy_row(stripes_[p + 1].rsd, s.rsd, k, s.owned.end);
        upper_sweep_plane(c_, g_, s.owned, k, s.u, s.rsd, s.sws, t);
      }
    }
  }

  /// The owned value of column j (from whichever stripe owns it).
  const double* column(const Field5 Stripe::*field, int j) const {
    for (const auto& s : stripes_)
      if (s.owned.contains(j)) return (s.*field).column(j);
    return nullptr;
  }
  [[nodiscard]] std::size_t column_size() const { return stripes_[0].u.column_stride(); }
  [[nodiscard]] const GridSize& grid() const { return g_; }

 private:
  void exchange_state_halos() {
    for (auto& s : stripes_) {
      const ColumnRange stored = s.u.columns();
      for (int j = stored.begin; j < stored.end; ++j) {
        if (s.owned.contains(j) || j == 0 || j == g_.ny - 1) continue;
        std::memcpy(s.u.column(j), column(&Stripe::u, j), column_size() * sizeof(double));
      }
    }
  }
  static void copy_row(const Field5& from, Field5& to, int k, int j) {
    std::memcpy(to.row(k, j), from.row(k, j), to.row_stride() * sizeof(double));
  }
  GridSize g_;
  Coefficients c_;
  std::vector<Stripe> stripes_;
};

void expect_bitwise_equal(const StripedGrid& a, const StripedGrid& b, const Field5 Stripe::*field) {
  const GridSize& g = a.grid();
  for (int j = 1; j < g.ny - 1; ++j) {
    EXPECT_EQ(std::memcmp(a.column(field, j), b.column(field, j), a.column_size() * sizeof(double)), 0)
        << "column " << j;
  }
}

}  // namespace

TEST(KernelsPartitioned, ClassSGridOneVersusThreeStripes) {
  const GridSize g{12, 12, 12};
  StripedGrid one(g, 0.5, Partition::equal(g.interior_columns(), 1));
  StripedGrid three(g, 0.5, Partition::from_widths(g.interior_columns(), std::vector<int>{3, 5, 2}));
  expect_bitwise_equal(one, three, &Stripe::frct);
  for (int it = 0; it < 3; ++it) {
    one.iterate();
    three.iterate();
  }
  expect_bitwise_equal(one, three, &Stripe::rsd);
  expect_bitwise_equal(one, three, &Stripe::u);
}

TEST(KernelsPartitioned, NonCubicGridMinimumWidthStripes) {
  const GridSize g{9, 14, 7};
  StripedGrid one(g, 0.5, Partition::equal(g.interior_columns(), 1));
  StripedGrid six(g, 0.5, Partition::equal(g.interior_columns(), 6));  // widths 2
  for (int it = 0; it < 2; ++it) {
    one.iterate();
    six.iterate();
  }
  expect_bitwise_equal(one, six, &Stripe::u);
}

TEST(KernelsPartitioned, ExactSolutionIsASteadyState) {
  // frct is built so that the exact solution has (almost) zero residual:
  // checks rhs against erhs, independently of the sweeps.
  const GridSize g{12, 12, 12};
  const auto c = Coefficients::make(g, 0.5);
  const ColumnRange owned = g.interior_columns();
  Field5 u(g.nx, g.nz, stored_columns(g, owned, kStateHalo));
  Field5 rsd(g.nx, g.nz, stored_columns(g, owned, kResidualHalo));
  Field5 frct(g.nx, g.nz, owned);
  for (int j = 0; j < g.ny; ++j)
    for (int k = 0; k < g.nz; ++k)
      for (int i = 0; i < g.nx; ++i) exact_solution(c, g, i, j, k, u.point(i, k, j));
  ResidualWorkspace ws(g, owned);
  compute_forcing(c, g, owned, frct, u, rsd, ws);
  compute_residual(c, g, owned, u, frct, rsd, ws);
  const auto frct_norm = rms_from_sums(g, local_sum_of_squares(g, owned, frct));
  const auto rsd_norm = rms_from_sums(g, local_sum_of_squares(g, owned, rsd));
  for (int m = 0; m < 5; ++m) {
    EXPECT_GT(frct_norm[m], 1.0);
    EXPECT_LT(rsd_norm[m], 1e-10 * frct_norm[m]) << m;
  }
}

TEST(KernelsPartitioned, SweepsNeverTouchRsdOnTheBoundaryColumns) {
  // rsd's columns j = 0 and ny-1 are zero and never written; the sweeps read
  // a row of zeros in their workspace for them. Were they read instead, their
  // pages would be allocated wherever the kernel maps no shared zero page
  // (2.7 MB a rank for class C, docs/performance.md#memory). Here the pages
  // inside those columns are made inaccessible: a read is a crash.
  const GridSize g{64, 64, 64};  // a 164 KB column: 38 whole pages inside it
  const auto c = Coefficients::make(g, 0.5);
  Stripe s = initial_stripe(g, c, g.interior_columns());
  const ColumnRange owned = s.owned;
  Field5 &u = s.u, &rsd = s.rsd;
  SweepWorkspace& sws = s.sws;
  compute_residual(c, g, owned, u, s.frct, rsd, s.rws);
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  struct Region {
    void* start;
    std::size_t bytes;
  };
  std::vector<Region> guarded;
  for (const int j : {0, g.ny - 1}) {
    const auto begin = reinterpret_cast<std::uintptr_t>(rsd.column(j));
    const auto end = begin + rsd.column_stride() * sizeof(double);
    const std::uintptr_t first = (begin + page - 1) / page * page, last = end / page * page;
    ASSERT_GT(last, first) << "column " << j << " holds no whole page";
    guarded.push_back({reinterpret_cast<void*>(first), last - first});
    ASSERT_EQ(mprotect(guarded.back().start, guarded.back().bytes, PROT_NONE), 0);
  }
  SweepTimes t;
  for (int k = 1; k <= g.nz - 2; ++k) lower_sweep_plane(c, g, owned, k, u, rsd, sws, t);
  for (int k = g.nz - 2; k >= 1; --k) upper_sweep_plane(c, g, owned, k, u, rsd, sws, t);
  for (const Region& r : guarded) ASSERT_EQ(mprotect(r.start, r.bytes, PROT_READ | PROT_WRITE), 0);
  for (const int j : {0, g.ny - 1}) {
    for (std::size_t e = 0; e < rsd.column_stride(); ++e) ASSERT_EQ(rsd.column(j)[e], 0.0) << j;
  }
}

TEST(KernelsPartitioned, UpperSweepUpdatesUAsNpbsWholeFieldPass) {
  // The upper sweep applies NPB's u += rsd / (omega (2 - omega)) row by row
  // (lu/row_update.hpp), at the level's width but never contracted into FMA:
  // bit for bit what the whole-field pass gives in this file (built with
  // -ffp-contract=off), at the level the CPU runs, on every interior plane.
  const GridSize g{13, 12, 11};
  const auto c = Coefficients::make(g, 0.5);
  Stripe s = initial_stripe(g, c, g.interior_columns());
  const ColumnRange owned = s.owned;
  Field5 &u = s.u, &rsd = s.rsd;
  SweepWorkspace& sws = s.sws;
  compute_residual(c, g, owned, u, s.frct, rsd, s.rws);
  SweepTimes t;
  for (int k = 1; k <= g.nz - 2; ++k) lower_sweep_plane(c, g, owned, k, u, rsd, sws, t);
  // Update: u of planes 1..nz-2 after the upper sweep is u + factor * rsd.
  const int row = 5 * g.nx;
  auto at = [&](int k, int j) { return std::size_t((j - owned.begin) * g.nz + k) * row; };
  std::vector<double> before(at(0, owned.end));
  for (int j = owned.begin; j < owned.end; ++j)
    for (int k = 0; k < g.nz; ++k) std::memcpy(&before[at(k, j)], u.row(k, j), row * sizeof(double));
  for (int k = g.nz - 2; k >= 1; --k) upper_sweep_plane(c, g, owned, k, u, rsd, sws, t);
  const double factor = 1.0 / (c.omega * (2.0 - c.omega));
  for (int j = owned.begin; j < owned.end; ++j) {
    for (int k = 0; k < g.nz; ++k) {
      for (int p = 0; p < row; ++p) {
        const bool updated = k >= 1 && k <= g.nz - 2 && p >= 5 && p < row - 5;
        const double old = before[at(k, j) + p];
        const double want = updated ? old + factor * rsd.row(k, j)[p] : old;
        ASSERT_EQ(u.row(k, j)[p], want) << "k " << k << " j " << j << " p " << p;
      }
    }
  }
}
