#include "lu/residual.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "lu/ivdep.hpp"
#include "lu/kernel_levels.hpp"
#include "lu/simd.hpp"
#include "lu/simd_points.hpp"

namespace npblu::NPBLU_KERNEL_NS {
namespace {

constexpr int kM = Field5::kComponents;

// The terms at a point are those of NPB's rhs (flux differences, viscous
// terms, second- and fourth-order dissipation along xi, eta and zeta), summed
// in one fixed order of our own. Nothing depends on `owned`: the only
// position-dependent choices, the dissipation closures, follow the global j
// and k, so every partition yields bitwise the same rsd. As in NPB, each
// direction needs at least five points.
//
// The kernels work on rows of i in structure-of-arrays form: quantity L of
// point i sits at row[L * ld + i], so every loop over i is unit stride and
// vectorises. Lanes of one row never overlap, but the compiler cannot prove
// it for a runtime stride, hence NPBLU_IVDEP (lu/ivdep.hpp: GCC's ivdep,
// clang's assume_safety) on those loops.
//
// A "plain" row holds the five conserved variables (lane m = component m).
// A "derived" row holds what the fluxes need besides them, computed with one
// division per point (NPB divides twelve times):
enum DerivedLane : int {
  kVelocityX = 0,   // momentum / rho
  kVelocityY,       //
  kVelocityZ,       //
  kSpecificEnergy,  // energy / rho
  kPressure,        // c2 (energy - q), q = 0.5 |momentum|^2 / rho
  kEnthalpyFlux,    // c1 energy - c2 q = energy + pressure: the energy flux / normal velocity
  kSpeedSquared,    // |velocity|^2
  kDerivedLanes
};

// Scratch layout: the accumulator of one row (first, so that a row shifted
// by one point for the xi stencil never points before the buffer), then two
// rings of columns, indexed by global column modulo the ring size: plain
// rows of columns j-2..j+2 and derived rows of columns j-1..j+1. Each column
// is transposed and derived once as it enters the rings. The rings hold a
// slab of planes only (a block of k plus the stencil's reach), so that they
// stay in the L2 cache on large grids; the j sweep is repeated per block.
constexpr int kPlainRing = 5;
constexpr int kDerivedRing = 3;
constexpr int kAccumulatorAt = 0;
constexpr int kPlainRingAt = kAccumulatorAt + kM;
constexpr int kRingLanesPerPlane = kPlainRing * kM + kDerivedRing * kDerivedLanes;
constexpr std::size_t kRingBytesTarget = std::size_t(1) << 20;
constexpr int kMinBlockPlanes = 8;

// Whole, aligned vectors: the loops over the interior points of a row compute
// points [0, computed_end(nx)), a multiple of the level's vector width kW,
// instead of [1, nx - 1). Starting at point 0 of rows that start on cache
// lines (align_scratch), each vector load of a row is one whole line, not a
// line split that costs two loads (this alone took 30% off rhs's time on
// AVX-512, class A). Ending on whole vectors saves a narrower and a scalar
// epilogue through loop bodies of some hundred operations each. Point 0 and
// the points past nx - 2 are computed from padding (below; for point 0, the
// end of the lane before) and never stored: points in lanes are independent,
// so the interior ones keep their bits.
int computed_end(int nx) { return (nx - 1 + simd::kW - 1) / simd::kW * simd::kW; }

// Lane stride: room for the reads of the last computed point's neighbour
// (index computed_end(nx)), rounded up to whole cache lines. Lanes past nx
// are padding, copies of point nx - 1 (a physical state: no division by zero).
std::size_t lane_stride(int nx) { return (std::size_t(computed_end(nx)) + 1 + 7) / 8 * 8; }

/// Sizes and offsets (in doubles) of the parts of the scratch.
struct ScratchLayout {
  std::size_t ld = 0;            // lane stride
  int block_planes = 0;          // interior planes k per block
  int slab_planes = 0;           // planes a block reads: block_planes + 2 on each side
  std::size_t plain_column = 0;  // one ring slot of plain rows
  std::size_t derived_column = 0;
  std::size_t derived_at = 0;  // start of the derived ring
  std::size_t size = 0;

  explicit ScratchLayout(const GridSize& g) : ld(lane_stride(g.nx)) {
    const int interior = std::max(1, g.nz - 2);
    const int fit = int(kRingBytesTarget / (kRingLanesPerPlane * ld * sizeof(double))) - 4;
    const int blocks = (interior + std::max(fit, kMinBlockPlanes) - 1) / std::max(fit, kMinBlockPlanes);
    block_planes = (interior + blocks - 1) / blocks;  // balanced blocks
    slab_planes = std::min(g.nz, block_planes + 4);
    plain_column = std::size_t(slab_planes) * kM * ld;
    derived_column = std::size_t(slab_planes) * kDerivedLanes * ld;
    derived_at = kPlainRingAt * ld + kPlainRing * plain_column;
    size = derived_at + kDerivedRing * derived_column;
  }
};

/// Copies planes [k_begin, k_end) of column j of u (m fastest) into plain
/// rows, plane after plane, and fills each row's padding (lane_stride): kW
/// points at a time through registers (simd::load_points), the rest scalar.
void transpose_column(const Field5& u, int j, int k_begin, int k_end, int nx, std::size_t ld,
                      double* __restrict plain) {
  using simd::kW;
  for (int k = k_begin; k < k_end; ++k) {
    const double* __restrict row = u.row(k, j);
    double* __restrict out = plain + std::size_t(k - k_begin) * kM * ld;
    int i = 0;
    for (; i + kW <= nx; i += kW) {
      simd::vd comp[kM];
      simd::load_points(row + kM * i, comp);
      for (int m = 0; m < kM; ++m) simd::store(out + m * ld + i, comp[m]);
    }
    for (int m = 0; m < kM; ++m) {
      for (int t = i; t < nx; ++t) out[m * ld + t] = row[kM * t + m];
      for (std::size_t t = nx; t < ld; ++t) out[m * ld + t] = row[kM * (nx - 1) + m];
    }
  }
}

/// Fills a derived row from a plain row, padding included.
void derive_row(const double* __restrict plain, std::size_t ld, double* __restrict derived) {
  using C = Coefficients;
  NPBLU_IVDEP
  for (std::size_t i = 0; i < ld; ++i) {
    const double rho = plain[i];
    const double mx = plain[1 * ld + i];
    const double my = plain[2 * ld + i];
    const double mz = plain[3 * ld + i];
    const double e = plain[4 * ld + i];
    const double inv_rho = 1.0 / rho;
    const double vx = mx * inv_rho;
    const double vy = my * inv_rho;
    const double vz = mz * inv_rho;
    derived[kVelocityX * ld + i] = vx;
    derived[kVelocityY * ld + i] = vy;
    derived[kVelocityZ * ld + i] = vz;
    derived[kSpecificEnergy * ld + i] = e * inv_rho;
    const double q = 0.5 * (mx * mx + my * my + mz * mz) * inv_rho;
    derived[kPressure * ld + i] = C::c2 * (e - q);
    derived[kEnthalpyFlux * ld + i] = C::c1 * e - C::c2 * q;
    derived[kSpeedSquared * ld + i] = vx * vx + vy * vy + vz * vz;
  }
}

/// The coefficients of one direction's terms, grouped as NPB evaluates them
/// (left-to-right products of the constants), the viscous ones times the
/// viscous flux difference's factor t3 c3 c4.
struct DirectionCoefficients {
  double central;         // t2 = 1/(2h): inviscid flux difference
  double shear;           // t3 c3 c4 t3: tangential velocity gradient
  double normal;          // t3 c3 c4 (4/3) t3: normal velocity gradient
  double kinetic;         // t3 c3 c4 0.5 (1 - c1 c5) t3
  double normal_kinetic;  // t3 c3 c4 (1/6) t3
  double internal;        // t3 c3 c4 c1 c5 t3
  double second[kM];      // d_m t1: second-order dissipation
};

DirectionCoefficients direction_coefficients(double t1, double t2, double t3,
                                             const std::array<double, 5>& d) {
  using C = Coefficients;
  const double viscous = t3 * C::c3 * C::c4;
  DirectionCoefficients dc{};
  dc.central = t2;
  dc.shear = viscous * t3;
  dc.normal = viscous * ((4.0 / 3.0) * t3);
  dc.kinetic = viscous * (0.5 * (1.0 - C::c1 * C::c5) * t3);
  dc.normal_kinetic = viscous * ((1.0 / 6.0) * t3);
  dc.internal = viscous * (C::c1 * C::c5 * t3);
  for (int m = 0; m < kM; ++m) dc.second[m] = d[m] * t1;
  return dc;
}

/// A row seen through both its plain and its derived lanes.
struct RowPair {
  const double* plain;
  const double* derived;
};

/// The five components of a flux at one point.
struct Flux {
  double f[kM];
};

/// Inviscid (Euler) flux along direction D at point i.
template <int D>
inline Flux inviscid_flux(const double* __restrict plain, const double* __restrict derived, std::size_t ld,
                          int i) {
  const double vn = derived[(kVelocityX + D) * ld + i];
  Flux flux;
  flux.f[0] = plain[(1 + D) * ld + i];
  flux.f[1] = plain[1 * ld + i] * vn;
  flux.f[2] = plain[2 * ld + i] * vn;
  flux.f[3] = plain[3 * ld + i] * vn;
  flux.f[1 + D] += derived[kPressure * ld + i];
  flux.f[4] = derived[kEnthalpyFlux * ld + i] * vn;
  return flux;
}

/// lo - 2 mid + hi, the centred second difference of rhs's rows.
inline double second_difference(double lo, double mid, double hi) { return (lo + hi) - 2.0 * mid; }

/// The viscous terms of direction D at point i of derived rows mid (the
/// point), lo and hi (its neighbours along D): the difference of the viscous
/// fluxes on the faces ahead and behind. The fluxes are linear in
/// differences of the derived lanes (velocities, |velocity|^2, specific
/// energy, and the normal velocity squared), so their difference is the same
/// combination of second differences lo - 2 mid + hi; component 0 has none.
template <int D>
inline Flux viscous_terms(const DirectionCoefficients& dc, const double* __restrict lo,
                          const double* __restrict mid, const double* __restrict hi, std::size_t ld, int i) {
  auto second = [&](int lane) {
    return second_difference(lo[lane * ld + i], mid[lane * ld + i], hi[lane * ld + i]);
  };
  const double vl = lo[(kVelocityX + D) * ld + i];
  const double vm = mid[(kVelocityX + D) * ld + i];
  const double vh = hi[(kVelocityX + D) * ld + i];
  Flux terms;
  terms.f[0] = 0.0;
  terms.f[1] = (D == 0 ? dc.normal : dc.shear) * second(kVelocityX);
  terms.f[2] = (D == 1 ? dc.normal : dc.shear) * second(kVelocityY);
  terms.f[3] = (D == 2 ? dc.normal : dc.shear) * second(kVelocityZ);
  // The squares' second difference is spelt out: through second_difference
  // GCC contracts other products into FMAs at v3/v4 (other bits).
  terms.f[4] = dc.kinetic * second(kSpeedSquared) +
               dc.normal_kinetic * ((vl * vl + vh * vh) - 2.0 * (vm * vm)) +
               dc.internal * second(kSpecificEnergy);
  return terms;
}

/// Inviscid flux difference and viscous terms of direction D (0 = xi, 1 =
/// eta, 2 = zeta) at the computed points [0, end) of a row, given its
/// neighbours along D (`lo` at p-1, `hi` at p+1; for xi they are `mid`
/// shifted by one point). Xi, the first direction, overwrites the
/// accumulator and adds its second-order dissipation; eta's and zeta's are
/// in the stencil across rows (add_dissipation_across_rows).
template <int D>
void add_direction_terms(const DirectionCoefficients& dc, RowPair lo, RowPair mid, RowPair hi, int end,
                         std::size_t ld, double* __restrict acc) {
  constexpr bool kFirst = D == 0;
  const double* __restrict lo_plain = lo.plain;
  const double* __restrict lo_derived = lo.derived;
  const double* __restrict mid_plain = mid.plain;
  const double* __restrict mid_derived = mid.derived;
  const double* __restrict hi_plain = hi.plain;
  const double* __restrict hi_derived = hi.derived;
  NPBLU_IVDEP
  for (int i = 0; i < end; ++i) {
    const Flux in_lo = inviscid_flux<D>(lo_plain, lo_derived, ld, i);
    const Flux in_hi = inviscid_flux<D>(hi_plain, hi_derived, ld, i);
    const Flux viscous = viscous_terms<D>(dc, lo_derived, mid_derived, hi_derived, ld, i);
    for (int m = 0; m < kM; ++m) {
      double r = (kFirst ? 0.0 : acc[m * ld + i]) - dc.central * (in_hi.f[m] - in_lo.f[m]);
      if (m > 0) r += viscous.f[m];
      if constexpr (kFirst)
        r += dc.second[m] *
             second_difference(lo_plain[m * ld + i], mid_plain[m * ld + i], hi_plain[m * ld + i]);
      acc[m * ld + i] = r;
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

/// Fourth-order dissipation along i within one plain row. Separate ifs, not
/// else-if, here and below: on a tiny grid a point takes two closures, as in
/// NPB.
void add_dissipation_along_row(double dssp, const double* __restrict plain, int nx, std::size_t ld,
                               double* __restrict acc) {
  const int n = nx;
  for (int m = 0; m < kM; ++m) {
    const double* __restrict a = plain + m * ld;
    double* __restrict r = acc + m * ld;
    r[1] -= dssp * closure_first(a[1], a[2], a[3]);
    r[2] -= dssp * closure_second(a[1], a[2], a[3], a[4]);
    for (int i = 3; i < n - 3; ++i)
      r[i] -= dssp * fourth_difference(a[i - 2], a[i - 1], a[i], a[i + 1], a[i + 2]);
    r[n - 3] -= dssp * closure_second_last(a[n - 5], a[n - 4], a[n - 3], a[n - 2]);
    r[n - 2] -= dssp * closure_last(a[n - 4], a[n - 3], a[n - 2]);
  }
}

/// Weights of the rows p-2..p+2 in the fourth-order dissipation at position
/// p of a line of n points (global j or k): the centred fourth difference
/// away from the boundaries, NPB's one-sided closures next to them (summed
/// where a tiny line puts a point under two closures, as NPB applies both).
std::array<double, 5> dissipation_weights(int p, int n) {
  std::array<double, 5> w{};
  auto add = [&w](std::array<double, 5> v) {
    for (int d = 0; d < 5; ++d) w[d] += v[d];
  };
  if (p == 1) add({0.0, 0.0, 5.0, -4.0, 1.0});
  if (p == 2) add({0.0, -4.0, 6.0, -4.0, 1.0});
  if (p >= 3 && p < n - 3) add({1.0, -4.0, 6.0, -4.0, 1.0});
  if (p == n - 3) add({1.0, -4.0, 6.0, -4.0, 0.0});
  if (p == n - 2) add({1.0, -4.0, 5.0, 0.0, 0.0});
  return w;
}

/// The stencil of one component across rows: weights of the rows p-2..p+2
/// along eta and zeta. The centre row is shared: its whole weight is
/// `centre`, and eta[2] and zeta[2] (the fourth-order parts of it) are not
/// read by the loop.
struct CrossStencil {
  double eta[5];
  double zeta[5];
  double centre;
};

/// Fourth-order dissipation (weights wj, wk from dissipation_weights) and
/// second-order dissipation (eta.second, zeta.second) of component m, both
/// linear in the rows around the point, as one stencil.
CrossStencil cross_stencil(double dssp, const std::array<double, 5>& wj, const std::array<double, 5>& wk,
                           double second_eta, double second_zeta) {
  CrossStencil s{};
  for (int d = 0; d < 5; ++d) {
    s.eta[d] = -dssp * wj[d];
    s.zeta[d] = -dssp * wk[d];
  }
  s.eta[1] += second_eta;
  s.eta[3] += second_eta;
  s.zeta[1] += second_zeta;
  s.zeta[3] += second_zeta;
  s.centre = (s.eta[2] - 2.0 * second_eta) + (s.zeta[2] - 2.0 * second_zeta);
  return s;
}

/// Second- and fourth-order dissipation along eta and zeta together at the
/// computed points [0, end) of a row: `columns` and `planes` are the plain
/// rows at j-2..j+2 and k-2..k+2 (a row with weight zero may stand in for
/// one outside the grid).
void add_dissipation_across_rows(double dssp, const DirectionCoefficients& eta,
                                 const DirectionCoefficients& zeta, const std::array<double, 5>& wj,
                                 const std::array<const double*, 5>& columns, const std::array<double, 5>& wk,
                                 const std::array<const double*, 5>& planes, int end, std::size_t ld,
                                 double* __restrict acc) {
  for (int m = 0; m < kM; ++m) {
    const CrossStencil w = cross_stencil(dssp, wj, wk, eta.second[m], zeta.second[m]);
    const std::size_t o = m * ld;
    NPBLU_IVDEP
    for (int i = 0; i < end; ++i) {
      const double along_eta = (w.eta[0] * columns[0][o + i] + w.eta[1] * columns[1][o + i]) +
                               (w.eta[3] * columns[3][o + i] + w.eta[4] * columns[4][o + i]);
      const double along_zeta = (w.zeta[0] * planes[0][o + i] + w.zeta[1] * planes[1][o + i]) +
                                (w.zeta[3] * planes[3][o + i] + w.zeta[4] * planes[4][o + i]);
      acc[o + i] = (acc[o + i] + w.centre * columns[2][o + i]) + (along_eta + along_zeta);
    }
  }
}

/// rsd = acc - frct at the interior points of one row: kW points at a time,
/// acc's component rows interleaved into rsd's layout in registers (the
/// compiler does not vectorise the scalar transposing loop), the rest scalar.
void store_residual(const double* __restrict acc, const double* __restrict frct, int nx, std::size_t ld,
                    double* __restrict rsd) {
  using simd::kW;
  int i = 1;
  for (; i + kW <= nx - 1; i += kW) {
    simd::vd comp[kM];
    for (int m = 0; m < kM; ++m) comp[m] = simd::load(acc + m * ld + i);
    simd::vd out[kM];
    simd::interleave_points(comp, out);
    for (int s = 0; s < kM; ++s)
      simd::store(rsd + kM * i + s * kW, out[s] - simd::load(frct + kM * i + s * kW));
  }
  for (; i < nx - 1; ++i) {
    for (int m = 0; m < kM; ++m) rsd[kM * i + m] = acc[m * ld + i] - frct[kM * i + m];
  }
}

// Rows start on cache lines (64 bytes), so that the loads of the loops, which
// start at point 0, are whole lines rather than each split over two.
constexpr std::size_t kAlignDoubles = 8;
double* align_scratch(double* p) {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  return p + ((64 - at % 64) % 64) / sizeof(double);
}

}  // namespace

std::size_t residual_scratch_doubles(const GridSize& g) { return ScratchLayout(g).size + kAlignDoubles; }

void compute_residual(const Coefficients& c, const GridSize& g, ColumnRange owned, const Field5& u,
                      const Field5& frct, Field5& rsd, double* const unaligned_scratch) {
  const int nx = g.nx, ny = g.ny, nz = g.nz;
  const ScratchLayout layout(g);
  const std::size_t ld = layout.ld;
  const int end = computed_end(nx);
  double* const scratch = align_scratch(unaligned_scratch);
  double* const acc = scratch + kAccumulatorAt * ld;

  const DirectionCoefficients xi = direction_coefficients(c.tx1, c.tx2, c.tx3, c.dx);
  const DirectionCoefficients eta = direction_coefficients(c.ty1, c.ty2, c.ty3, c.dy);
  const DirectionCoefficients zeta = direction_coefficients(c.tz1, c.tz2, c.tz3, c.dz);

  for (int block = 1; block < nz - 1; block += layout.block_planes) {
    const int block_end = std::min(nz - 1, block + layout.block_planes);
    // Planes the block reads: plain rows two planes out, derived rows one.
    const int slab_begin = std::max(0, block - 2);
    const int slab_end = std::min(nz, block_end + 2);

    auto plain_column = [&](int jj) {
      return scratch + kPlainRingAt * ld + std::size_t(jj % kPlainRing) * layout.plain_column;
    };
    auto derived_column = [&](int jj) {
      return scratch + layout.derived_at + std::size_t(jj % kDerivedRing) * layout.derived_column;
    };
    auto plain = [&](int k, int jj) -> const double* {
      return plain_column(jj) + std::size_t(k - slab_begin) * kM * ld;
    };
    auto derived = [&](int k, int jj) {
      return derived_column(jj) + std::size_t(k - slab_begin) * kDerivedLanes * ld;
    };
    auto row_pair = [&](int k, int jj) { return RowPair{plain(k, jj), derived(k, jj)}; };

    // Which global column each ring slot holds (-1: none yet in this block).
    std::array<int, kPlainRing> plain_holds;
    std::array<int, kDerivedRing> derived_holds;
    plain_holds.fill(-1);
    derived_holds.fill(-1);

    for (int j = owned.begin; j < owned.end; ++j) {
      for (int jj = std::max(0, j - 2); jj <= std::min(ny - 1, j + 2); ++jj) {
        if (plain_holds[jj % kPlainRing] == jj) continue;
        transpose_column(u, jj, slab_begin, slab_end, nx, ld, plain_column(jj));
        plain_holds[jj % kPlainRing] = jj;
      }
      for (int jj = j - 1; jj <= j + 1; ++jj) {
        if (derived_holds[jj % kDerivedRing] == jj) continue;
        for (int k = block - 1; k <= block_end; ++k) derive_row(plain(k, jj), ld, derived(k, jj));
        derived_holds[jj % kDerivedRing] = jj;
      }
      const std::array<double, 5> wj = dissipation_weights(j, ny);

      for (int k = block; k < block_end; ++k) {
        const RowPair here = row_pair(k, j);
        const RowPair here_lo{here.plain - 1, here.derived - 1};
        const RowPair here_hi{here.plain + 1, here.derived + 1};
        add_direction_terms<0>(xi, here_lo, here, here_hi, end, ld, acc);
        add_direction_terms<1>(eta, row_pair(k, j - 1), here, row_pair(k, j + 1), end, ld, acc);
        add_direction_terms<2>(zeta, row_pair(k - 1, j), here, row_pair(k + 1, j), end, ld, acc);

        add_dissipation_along_row(c.dssp, here.plain, nx, ld, acc);
        // Rows outside the grid carry weight zero; `here` stands in for them.
        add_dissipation_across_rows(c.dssp, eta, zeta, wj,
                                    {j >= 2 ? plain(k, j - 2) : here.plain, plain(k, j - 1), here.plain,
                                     plain(k, j + 1), j + 2 < ny ? plain(k, j + 2) : here.plain},
                                    dissipation_weights(k, nz),
                                    {k >= 2 ? plain(k - 2, j) : here.plain, plain(k - 1, j), here.plain,
                                     plain(k + 1, j), k + 2 < nz ? plain(k + 2, j) : here.plain},
                                    end, ld, acc);

        store_residual(acc, frct.row(k, j), nx, ld, rsd.row(k, j));
      }
    }
  }
}

}  // namespace npblu::NPBLU_KERNEL_NS
