#include "lu/residual.hpp"

#include <cstddef>

namespace npblu {
namespace {

constexpr int kM = Field5::kComponents;

// The kernels work on rows of i in structure-of-arrays form: quantity L of
// point i sits at row[L * stride + i], so every loop over i is unit stride.
// A "state row" holds the conserved variables and the primitive quantities
// the fluxes need, derived once per point (one division instead of NPB's
// twelve). Lanes of one row never overlap, but the compiler cannot prove it
// for a runtime stride, hence the `#pragma GCC ivdep` on the hot loops.
enum Lane : int {
  kRho = 0,  // conserved variables, in the order of the Field5 components
  kMomentumX,
  kMomentumY,
  kMomentumZ,
  kEnergy,
  kVelocityX,  // momentum / rho
  kVelocityY,
  kVelocityZ,
  kSpecificEnergy,  // energy / rho
  kKineticEnergy,   // 0.5 |momentum|^2 / rho
  kSpeedSquared,    // |velocity|^2
  kStateLanes
};
// A plain row holds only the conserved variables (lanes kRho..kEnergy).
constexpr int kPlainLanes = kM;

// Scratch layout, in lanes: the accumulator first (so that a state row
// shifted by one point never points before the buffer), then a ring of five
// state rows k-2..k+2 of the current column, the state rows of the two
// neighbouring columns and plain rows of the columns two away.
constexpr int kRingRows = 5;
constexpr int kAccumulatorAt = 0;
constexpr int kRingAt = kAccumulatorAt + kM;
constexpr int kBelowAt = kRingAt + kRingRows * kStateLanes;  // column j-1
constexpr int kAboveAt = kBelowAt + kStateLanes;              // column j+1
constexpr int kFarBelowAt = kAboveAt + kStateLanes;           // column j-2
constexpr int kFarAboveAt = kFarBelowAt + kPlainLanes;        // column j+2
constexpr int kScratchLanes = kFarAboveAt + kPlainLanes;

// Lane stride: nx rounded up to whole cache lines.
std::size_t lane_stride(int nx) { return (std::size_t(nx) + 7) / 8 * 8; }

/// The coefficients of one direction's terms, grouped as NPB evaluates them
/// (left-to-right products of the constants).
struct DirectionCoefficients {
  double central;           // t2 = 1/(2h): inviscid flux difference
  double viscous;           // t3 * c3 * c4: viscous flux difference
  double shear;             // t3: tangential velocity gradient
  double normal;            // (4/3) t3: normal velocity gradient
  double kinetic;           // 0.5 (1 - c1 c5) t3
  double normal_kinetic;    // (1/6) t3
  double internal;          // c1 c5 t3
  double second[kM];        // d_m t1: second-order dissipation
};

DirectionCoefficients direction_coefficients(double t1, double t2, double t3, const std::array<double, 5>& d) {
  using C = Coefficients;
  DirectionCoefficients dc{};
  dc.central = t2;
  dc.viscous = t3 * C::c3 * C::c4;
  dc.shear = t3;
  dc.normal = (4.0 / 3.0) * t3;
  dc.kinetic = 0.5 * (1.0 - C::c1 * C::c5) * t3;
  dc.normal_kinetic = (1.0 / 6.0) * t3;
  dc.internal = C::c1 * C::c5 * t3;
  for (int m = 0; m < kM; ++m) dc.second[m] = d[m] * t1;
  return dc;
}

/// Copies one (k, j) row of u (m fastest) into the conserved lanes of a row.
void copy_plain_row(const double* __restrict u, int nx, std::size_t ld, double* __restrict s) {
  for (int m = 0; m < kM; ++m) {
    for (int i = 0; i < nx; ++i) s[m * ld + i] = u[kM * i + m];
  }
}

/// Fills a state row from one (k, j) row of u.
void derive_state_row(const double* __restrict u, int nx, std::size_t ld, double* __restrict s) {
  copy_plain_row(u, nx, ld, s);
#pragma GCC ivdep
  for (int i = 0; i < nx; ++i) {
    const double rho = s[kRho * ld + i];
    const double mx = s[kMomentumX * ld + i];
    const double my = s[kMomentumY * ld + i];
    const double mz = s[kMomentumZ * ld + i];
    const double inv_rho = 1.0 / rho;
    const double vx = mx * inv_rho;
    const double vy = my * inv_rho;
    const double vz = mz * inv_rho;
    s[kVelocityX * ld + i] = vx;
    s[kVelocityY * ld + i] = vy;
    s[kVelocityZ * ld + i] = vz;
    s[kSpecificEnergy * ld + i] = s[kEnergy * ld + i] * inv_rho;
    s[kKineticEnergy * ld + i] = 0.5 * (mx * mx + my * my + mz * mz) * inv_rho;
    s[kSpeedSquared * ld + i] = vx * vx + vy * vy + vz * vz;
  }
}

/// acc = -frct at the interior points of one row.
void start_from_forcing(const double* __restrict frct, int nx, std::size_t ld, double* __restrict acc) {
  for (int m = 0; m < kM; ++m) {
    for (int i = 1; i < nx - 1; ++i) acc[m * ld + i] = -frct[kM * i + m];
  }
}

/// rsd = acc at the interior points of one row.
void store_residual(const double* __restrict acc, int nx, std::size_t ld, double* __restrict rsd) {
  for (int i = 1; i < nx - 1; ++i) {
    for (int m = 0; m < kM; ++m) rsd[kM * i + m] = acc[m * ld + i];
  }
}

/// The five components of a flux at one point.
struct Flux {
  double f[kM];
};

/// Inviscid (Euler) flux along direction D at point i of a state row.
template <int D>
inline Flux inviscid_flux(const double* s, std::size_t ld, int i) {
  using C = Coefficients;
  const double vn = s[(kVelocityX + D) * ld + i];
  const double q = s[kKineticEnergy * ld + i];
  const double e = s[kEnergy * ld + i];
  Flux flux;
  flux.f[0] = s[(kMomentumX + D) * ld + i];
  flux.f[1] = s[kMomentumX * ld + i] * vn;
  flux.f[2] = s[kMomentumY * ld + i] * vn;
  flux.f[3] = s[kMomentumZ * ld + i] * vn;
  flux.f[1 + D] += C::c2 * (e - q);
  flux.f[4] = (C::c1 * e - C::c2 * q) * vn;
  return flux;
}

/// Viscous flux along direction D on the face between point i of state rows
/// a (behind) and b (ahead); component 0 has none.
template <int D>
inline Flux viscous_flux(const DirectionCoefficients& dc, const double* a, const double* b, std::size_t ld,
                         int i) {
  auto difference = [&](int lane) { return b[lane * ld + i] - a[lane * ld + i]; };
  Flux flux;
  flux.f[0] = 0.0;
  flux.f[1] = (D == 0 ? dc.normal : dc.shear) * difference(kVelocityX);
  flux.f[2] = (D == 1 ? dc.normal : dc.shear) * difference(kVelocityY);
  flux.f[3] = (D == 2 ? dc.normal : dc.shear) * difference(kVelocityZ);
  const double vb = b[(kVelocityX + D) * ld + i];
  const double va = a[(kVelocityX + D) * ld + i];
  flux.f[4] = dc.kinetic * difference(kSpeedSquared) + dc.normal_kinetic * (vb * vb - va * va) +
              dc.internal * difference(kSpecificEnergy);
  return flux;
}

/// Inviscid flux difference, viscous flux difference and second-order
/// dissipation of direction D (0 = xi, 1 = eta, 2 = zeta) at the interior
/// points of a row, given the state rows of its neighbours along D (`lo`
/// at p-1, `hi` at p+1; for xi they are `mid` shifted by one point).
template <int D>
void add_direction_terms(const DirectionCoefficients& dc, const double* __restrict lo,
                         const double* __restrict mid, const double* __restrict hi, int nx, std::size_t ld,
                         double* __restrict acc) {
#pragma GCC ivdep
  for (int i = 1; i < nx - 1; ++i) {
    const Flux in_lo = inviscid_flux<D>(lo, ld, i);
    const Flux in_hi = inviscid_flux<D>(hi, ld, i);
    const Flux visc_lo = viscous_flux<D>(dc, lo, mid, ld, i);
    const Flux visc_hi = viscous_flux<D>(dc, mid, hi, ld, i);
    for (int m = 0; m < kM; ++m) {
      double r = acc[m * ld + i] - dc.central * (in_hi.f[m] - in_lo.f[m]);
      const double second = lo[m * ld + i] - 2.0 * mid[m * ld + i] + hi[m * ld + i];
      if (m > 0) r += dc.viscous * (visc_hi.f[m] - visc_lo.f[m]);
      acc[m * ld + i] = r + dc.second[m] * second;
    }
  }
}

// Fourth-order dissipation: the centred fourth difference and NPB's
// one-sided closures at the first two and last two interior points.
inline double closure_first(double a0, double a1, double a2) { return 5.0 * a0 - 4.0 * a1 + a2; }
inline double closure_second(double am1, double a0, double a1, double a2) {
  return -4.0 * am1 + 6.0 * a0 - 4.0 * a1 + a2;
}
inline double fourth_difference(double am2, double am1, double a0, double a1, double a2) {
  return am2 - 4.0 * am1 + 6.0 * a0 - 4.0 * a1 + a2;
}
inline double closure_second_last(double am2, double am1, double a0, double a1) {
  return am2 - 4.0 * am1 + 6.0 * a0 - 4.0 * a1;
}
inline double closure_last(double am2, double am1, double a0) { return am2 - 4.0 * am1 + 5.0 * a0; }

/// Fourth-order dissipation along i within one row (`s` a state or plain row).
void add_dissipation_along_row(double dssp, const double* __restrict s, int nx, std::size_t ld,
                               double* __restrict acc) {
  const int n = nx;
  for (int m = 0; m < kM; ++m) {
    const double* a = s + m * ld;
    double* r = acc + m * ld;
    // Separate ifs, not else-if: on a tiny grid a point can take two
    // closures, as in NPB.
    r[1] -= dssp * closure_first(a[1], a[2], a[3]);
    r[2] -= dssp * closure_second(a[1], a[2], a[3], a[4]);
    for (int i = 3; i < n - 3; ++i) r[i] -= dssp * fourth_difference(a[i - 2], a[i - 1], a[i], a[i + 1], a[i + 2]);
    r[n - 3] -= dssp * closure_second_last(a[n - 5], a[n - 4], a[n - 3], a[n - 2]);
    r[n - 2] -= dssp * closure_last(a[n - 4], a[n - 3], a[n - 2]);
  }
}

/// Fourth-order dissipation across rows: the row sits at position p of a
/// line of n points (global j or k); rows[d] is the row at p-2+d (nullptr
/// where the closure does not need it).
void add_dissipation_across_rows(double dssp, int p, int n, const double* const rows[5], int nx, std::size_t ld,
                                 double* __restrict acc) {
  for (int m = 0; m < kM; ++m) {
    double* __restrict r = acc + m * ld;
    const std::size_t o = m * ld;
    if (p == 1) {
      const double *a0 = rows[2] + o, *a1 = rows[3] + o, *a2 = rows[4] + o;
      for (int i = 1; i < nx - 1; ++i) r[i] -= dssp * closure_first(a0[i], a1[i], a2[i]);
    }
    if (p == 2) {
      const double *am1 = rows[1] + o, *a0 = rows[2] + o, *a1 = rows[3] + o, *a2 = rows[4] + o;
      for (int i = 1; i < nx - 1; ++i) r[i] -= dssp * closure_second(am1[i], a0[i], a1[i], a2[i]);
    }
    if (p >= 3 && p < n - 3) {
      const double *am2 = rows[0] + o, *am1 = rows[1] + o, *a0 = rows[2] + o, *a1 = rows[3] + o,
                   *a2 = rows[4] + o;
      for (int i = 1; i < nx - 1; ++i) {
        r[i] -= dssp * fourth_difference(am2[i], am1[i], a0[i], a1[i], a2[i]);
      }
    }
    if (p == n - 3) {
      const double *am2 = rows[0] + o, *am1 = rows[1] + o, *a0 = rows[2] + o, *a1 = rows[3] + o;
      for (int i = 1; i < nx - 1; ++i) r[i] -= dssp * closure_second_last(am2[i], am1[i], a0[i], a1[i]);
    }
    if (p == n - 2) {
      const double *am2 = rows[0] + o, *am1 = rows[1] + o, *a0 = rows[2] + o;
      for (int i = 1; i < nx - 1; ++i) r[i] -= dssp * closure_last(am2[i], am1[i], a0[i]);
    }
  }
}

}  // namespace

ResidualWorkspace::ResidualWorkspace(const GridSize& g, ColumnRange /*owned*/)
    : scratch_(kScratchLanes * lane_stride(g.nx)) {}

void compute_residual(const Coefficients& c, const GridSize& g, ColumnRange owned, const Field5& u,
                      const Field5& frct, Field5& rsd, ResidualWorkspace& ws) {
  const int nx = g.nx, ny = g.ny, nz = g.nz;
  const std::size_t ld = lane_stride(nx);
  // Only a default-constructed or foreign workspace grows here.
  if (ws.scratch_.size() < kScratchLanes * ld) ws.scratch_.resize(kScratchLanes * ld);
  double* const scratch = ws.scratch_.data();
  double* const acc = scratch + kAccumulatorAt * ld;
  double* const below = scratch + kBelowAt * ld;
  double* const above = scratch + kAboveAt * ld;
  double* const far_below = scratch + kFarBelowAt * ld;
  double* const far_above = scratch + kFarAboveAt * ld;
  // State row of plane k of the current column (k in [0, nz)).
  auto ring = [&](int k) { return scratch + (kRingAt + (k % kRingRows) * kStateLanes) * ld; };

  const DirectionCoefficients xi = direction_coefficients(c.tx1, c.tx2, c.tx3, c.dx);
  const DirectionCoefficients eta = direction_coefficients(c.ty1, c.ty2, c.ty3, c.dy);
  const DirectionCoefficients zeta = direction_coefficients(c.tz1, c.tz2, c.tz3, c.dz);

  for (int j = owned.begin; j < owned.end; ++j) {
    // The ring holds planes k-2..k+2 of column j; each plane is derived once.
    for (int k = 0; k < 3 && k < nz; ++k) derive_state_row(u.row(k, j), nx, ld, ring(k));
    for (int k = 1; k < nz - 1; ++k) {
      if (k + 2 < nz) derive_state_row(u.row(k + 2, j), nx, ld, ring(k + 2));
      const double* const here = ring(k);
      // Neighbouring columns: recomputed per row (cheap next to the fluxes,
      // and keeps the scratch small enough for cache).
      derive_state_row(u.row(k, j - 1), nx, ld, below);
      derive_state_row(u.row(k, j + 1), nx, ld, above);
      if (j - 2 >= 0) copy_plain_row(u.row(k, j - 2), nx, ld, far_below);
      if (j + 2 < ny) copy_plain_row(u.row(k, j + 2), nx, ld, far_above);

      // Same terms in the same order as NPB: -frct, then xi, eta and zeta,
      // each as flux differences, viscous terms, fourth-order dissipation.
      start_from_forcing(frct.row(k, j), nx, ld, acc);

      add_direction_terms<0>(xi, here - 1, here, here + 1, nx, ld, acc);
      add_dissipation_along_row(c.dssp, here, nx, ld, acc);

      add_direction_terms<1>(eta, below, here, above, nx, ld, acc);
      const double* const columns[5] = {j - 2 >= 0 ? far_below : nullptr, below, here, above,
                                        j + 2 < ny ? far_above : nullptr};
      add_dissipation_across_rows(c.dssp, j, ny, columns, nx, ld, acc);

      add_direction_terms<2>(zeta, ring(k - 1), here, ring(k + 1), nx, ld, acc);
      const double* const planes[5] = {k - 2 >= 0 ? ring(k - 2) : nullptr, ring(k - 1), here, ring(k + 1),
                                       k + 2 < nz ? ring(k + 2) : nullptr};
      add_dissipation_across_rows(c.dssp, k, nz, planes, nx, ld, acc);

      store_residual(acc, nx, ld, rsd.row(k, j));
    }
  }
}

}  // namespace npblu
