// The kernels on one stripe versus the same grid cut into several stripes,
// with the halo copies and the pipeline of the solver done by hand (each
// stripe swept after the one it waits for, its halo rows copied when the
// kernel asks for them): the fields must agree bit for bit, since the SSOR
// update order does not depend on the partition.
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
    for (int p = 0; p < n; ++p) {
      Stripe& s = stripes_[p];
      HaloCopy halo(p > 0 ? &stripes_[p - 1] : nullptr, s, s.owned.begin - 1, s.owned.end - 1, g_.nz);
      lower_sweep(c_, g_, s.owned, s.u, s.rsd, s.sws, t, halo);
      halo.expect_every_plane_once();
    }
    for (int p = n - 1; p >= 0; --p) {
      Stripe& s = stripes_[p];
      HaloCopy halo(p + 1 < n ? &stripes_[p + 1] : nullptr, s, s.owned.end, s.owned.begin, g_.nz);
      upper_sweep(c_, g_, s.owned, s.u, s.rsd, s.sws, t, halo);
      halo.expect_every_plane_once();
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
  /// The solver's messages by hand: copies the neighbour's rsd row (k, j)
  /// when the kernel first needs it, and checks that each plane is asked for
  /// once, before it is done, and that its edge row (k, edge) is not written
  /// after the kernel says it is final.
  class HaloCopy final : public SweepNeighbours {
   public:
    HaloCopy(const Stripe* from, Stripe& to, int halo, int edge, int nz)
        : from_(from), to_(to), halo_(halo), edge_(edge), state_(nz, 0) {}
    void plane_needed(int k) override {
      EXPECT_EQ(state_.at(k), 0) << "plane " << k;
      state_.at(k) = 1;
      if (from_)
        std::memcpy(to_.rsd.row(k, halo_), from_->rsd.row(k, halo_), to_.rsd.row_stride() * sizeof(double));
    }
    void plane_done(int k) override {
      EXPECT_EQ(state_.at(k), 1) << "plane " << k;
      state_.at(k) = 2;
      const double* edge = to_.rsd.row(k, edge_);
      final_.emplace_back(k, std::vector<double>(edge, edge + to_.rsd.row_stride()));
    }
    // The stripes are swept one after another: no rank waits in a pipeline,
    // so the kernel goes by the stripe's width alone, as on one rank.
    [[nodiscard]] int pipeline_ranks() const override { return 1; }
    void expect_every_plane_once() const {
      for (std::size_t k = 1; k + 1 < state_.size(); ++k) EXPECT_EQ(state_[k], 2) << "plane " << k;
      for (const auto& [k, row] : final_)
        EXPECT_EQ(std::memcmp(row.data(), to_.rsd.row(k, edge_), row.size() * sizeof(double)), 0)
            << "plane " << k;
    }

   private:
    const Stripe* from_;
    Stripe& to_;
    int halo_, edge_;
    std::vector<int> state_;
    std::vector<std::pair<int, std::vector<double>>> final_;
  };
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

TEST(KernelsPartitioned, StripesNarrowerThanTheLanes) {
  // Stripes of 2 and 3 rows (the narrowest a stripe may be) go plane by
  // plane, pass A's groups of 4 or 8 points partial at nx = 11; the one
  // stripe of 11 rows by hyperplanes (11 planes: at 8 lanes lanes 0-2 take a
  // second plane, at 4 lanes lanes 0-2 a third).
  const GridSize g{11, 13, 13};
  StripedGrid one(g, 0.5, Partition::equal(g.interior_columns(), 1));
  StripedGrid five(g, 0.5, Partition::from_widths(g.interior_columns(), std::vector<int>{2, 3, 2, 2, 2}));
  StripedGrid four(g, 0.5, Partition::from_widths(g.interior_columns(), std::vector<int>{5, 2, 2, 2}));
  for (int it = 0; it < 2; ++it) {
    one.iterate();
    five.iterate();
    four.iterate();
  }
  expect_bitwise_equal(one, five, &Stripe::u);
  expect_bitwise_equal(one, five, &Stripe::rsd);
  expect_bitwise_equal(one, four, &Stripe::u);
}

TEST(KernelsPartitioned, HyperplanesAndPlanesGiveTheSameBits) {
  // Stripes of kMinHyperplaneRows (8) rows or more go by hyperplanes,
  // narrower ones plane by plane (lu/sweeps.cpp): one stripe of 38 rows, a
  // hyperplane stripe beside plane ones, and plane stripes only must agree
  // bit for bit.
  const GridSize g{10, 40, 11};
  StripedGrid one(g, 0.5, Partition::equal(g.interior_columns(), 1));
  StripedGrid mixed(g, 0.5, Partition::from_widths(g.interior_columns(), std::vector<int>{5, 28, 5}));
  StripedGrid narrow(g, 0.5,
                     Partition::from_widths(g.interior_columns(), std::vector<int>{7, 7, 7, 7, 6, 4}));
  for (int it = 0; it < 2; ++it) {
    one.iterate();
    mixed.iterate();
    narrow.iterate();
  }
  expect_bitwise_equal(one, mixed, &Stripe::u);
  expect_bitwise_equal(one, mixed, &Stripe::rsd);
  expect_bitwise_equal(one, narrow, &Stripe::u);
}

TEST(KernelsPartitioned, HyperplanesFromTheLanesWidthOn) {
  // Lane t takes planes t, t + kW, ..., a plane's rows and a step's rest
  // (HyperplaneOrder, lu/sweeps.hpp): stripes of twice the lanes (8 rows at
  // 4 lanes, 16 at 8), 10 and 16 at 4 lanes, over 9 planes (one more than
  // 8 lanes; at 4 lanes two rounds and one plane) and over 4 (fewer planes
  // than 8 lanes), against plane stripes.
  for (const int nz : {11, 6}) {
    const GridSize g{10, 40, nz};
    StripedGrid planes(g, 0.5,
                       Partition::from_widths(g.interior_columns(), std::vector<int>{7, 7, 7, 7, 6, 4}));
    StripedGrid lanes(g, 0.5, Partition::from_widths(g.interior_columns(), std::vector<int>{8, 16, 4, 10}));
    for (int it = 0; it < 2; ++it) {
      planes.iterate();
      lanes.iterate();
    }
    expect_bitwise_equal(planes, lanes, &Stripe::u);
    expect_bitwise_equal(planes, lanes, &Stripe::rsd);
  }
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
  NoSweepNeighbours none;
  lower_sweep(c, g, owned, u, rsd, sws, t, none);
  upper_sweep(c, g, owned, u, rsd, sws, t, none);
  for (const Region& r : guarded) ASSERT_EQ(mprotect(r.start, r.bytes, PROT_READ | PROT_WRITE), 0);
  for (const int j : {0, g.ny - 1}) {
    for (std::size_t e = 0; e < rsd.column_stride(); ++e) ASSERT_EQ(rsd.column(j)[e], 0.0) << j;
  }
}

namespace {

// The upper sweep applies NPB's u += rsd / (omega (2 - omega)) row by row
// (lu/row_update.hpp), at the level's width but never contracted into FMA:
// bit for bit what the whole-field pass gives in this file (built with
// -ffp-contract=off), at the level the CPU runs, on every interior plane.
void expect_upper_sweep_updates_u(const GridSize g) {
  const auto c = Coefficients::make(g, 0.5);
  Stripe s = initial_stripe(g, c, g.interior_columns());
  const ColumnRange owned = s.owned;
  Field5 &u = s.u, &rsd = s.rsd;
  SweepWorkspace& sws = s.sws;
  compute_residual(c, g, owned, u, s.frct, rsd, s.rws);
  SweepTimes t;
  NoSweepNeighbours none;
  lower_sweep(c, g, owned, u, rsd, sws, t, none);
  // Update: u of planes 1..nz-2 after the upper sweep is u + factor * rsd.
  const int row = 5 * g.nx;
  auto at = [&](int k, int j) { return std::size_t((j - owned.begin) * g.nz + k) * row; };
  std::vector<double> before(at(0, owned.end));
  for (int j = owned.begin; j < owned.end; ++j)
    for (int k = 0; k < g.nz; ++k) std::memcpy(&before[at(k, j)], u.row(k, j), row * sizeof(double));
  upper_sweep(c, g, owned, u, rsd, sws, t, none);
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

}  // namespace

TEST(KernelsPartitioned, UpperSweepUpdatesUAsNpbsWholeFieldPassPlaneByPlane) {
  expect_upper_sweep_updates_u(GridSize{13, 12, 11});  // 10 rows: plane by plane
}

TEST(KernelsPartitioned, UpperSweepUpdatesUAsNpbsWholeFieldPassByHyperplanes) {
  expect_upper_sweep_updates_u(GridSize{9, 30, 12});  // 28 rows: by hyperplanes
}
