// The SSOR triangular sweeps (NPB LU's jacld + blts and jacu + buts).
//
// Each (k, j) row of i is processed in two stages:
//  A. Everything that does not depend on the recurrence along i, vectorised
//     across i on structure-of-arrays copies of the row's inputs: the
//     neighbour blocks in k and j applied to the already-swept neighbour rows,
//     the diagonal block (factored) and the i-neighbour block.
//  B. The recurrence along i: apply the i-neighbour block to the point just
//     solved, then the elimination with the diagonal block.
// Every point is computed by the same code whatever the owned columns are,
// so the results do not depend on the partition.
#include "lu/sweeps.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "lu/wall_clock.hpp"

namespace npblu {

namespace {

constexpr int kM = Field5::kComponents;

constexpr double c1 = Coefficients::c1;
constexpr double c2 = Coefficients::c2;
constexpr double r43 = 4.0 / 3.0;
constexpr double c34 = Coefficients::c3 * Coefficients::c4;
constexpr double c1345 = Coefficients::c1 * Coefficients::c3 * Coefficients::c4 * Coefficients::c5;

// ---------------------------------------------------------------------------
// Block formulas.

/// Constants of one neighbour block (the flux Jacobian in one direction plus
/// its viscous and dissipation parts): s2 = -/+ dt*t?2 (lower/upper),
/// s1 = dt*t?1, diss = the d?1..d?5 of that direction.
struct NeighbourConsts {
  double s2 = 0, s2c1 = 0, s2c2 = 0, s2_2mc2 = 0, s2half_c2 = 0;
  double s1c34 = 0, s1r43c34 = 0, s1c1345 = 0, s1_c34m = 0, s1_r43c34m = 0;
  double s1diss[kM] = {};

  NeighbourConsts() = default;
  NeighbourConsts(double s2_, double s1, const std::array<double, 5>& diss)
      : s2(s2_),
        s2c1(s2_ * c1),
        s2c2(s2_ * c2),
        s2_2mc2(s2_ * (2.0 - c2)),
        s2half_c2(s2_ * 0.5 * c2),
        s1c34(s1 * c34),
        s1r43c34(s1 * r43 * c34),
        s1c1345(s1 * c1345),
        s1_c34m(s1 * (c34 - c1345)),
        s1_r43c34m(s1 * (r43 * c34 - c1345)) {
    for (int m = 0; m < kM; ++m) s1diss[m] = s1 * diss[m];
  }
};

/// Whether entry (m, n) of a neighbour block whose normal momentum component
/// is N (1: x, 2: y, 3: z) can be nonzero.
template <int N>
constexpr bool nonzero(int m, int n) {
  if (m == N || m == 4) return true;
  if (m == 0) return n == 0 || n == N;
  return n == 0 || n == m || n == N;
}

/// The neighbour block at a point with state (1/u1, u2, u3, u4, u5) = q.
/// Entries that are structurally zero are left untouched.
template <int N>
inline void neighbour_block(const NeighbourConsts& k, const double q[kM], double e[kM][kM]) {
  const double t1 = q[0];
  const double t2 = t1 * t1;
  const double t3 = t1 * t2;
  const double un = q[N];
  const double vn = un * t1;
  const double u5 = q[4];
  const double sq = q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  const double sq_n = N == 1   ? 3.0 * q[1] * q[1] + q[2] * q[2] + q[3] * q[3]
                      : N == 2 ? q[1] * q[1] + 3.0 * q[2] * q[2] + q[3] * q[3]
                               : q[1] * q[1] + q[2] * q[2] + 3.0 * q[3] * q[3];

  e[0][0] = -k.s1diss[0];
  e[0][N] = k.s2;

  e[N][0] = k.s2 * (-(vn * vn) + 0.5 * c2 * (sq * t2)) + k.s1r43c34 * t2 * un;
  e[N][N] = k.s2_2mc2 * vn - k.s1r43c34 * t1 - k.s1diss[N];
  e[N][4] = k.s2c2;

  double visc5 = 0.0;  // the viscous part of e[4][0], summed over m = 1..3
#pragma GCC unroll 3
  for (int m = 1; m < 4; ++m) {
    const double um = q[m];
    if (m == N) {
      visc5 += k.s1_r43c34m * t3 * (um * um);
      continue;
    }
    e[m][0] = -k.s2 * ((um * un) * t2) + k.s1c34 * t2 * um;
    e[m][m] = k.s2 * vn - k.s1c34 * t1 - k.s1diss[m];
    e[m][N] = k.s2 * (um * t1);
    e[N][m] = -k.s2c2 * (um * t1);
    e[4][m] = -k.s2c2 * ((um * un) * t2) - k.s1_c34m * t2 * um;
    visc5 += k.s1_c34m * t3 * (um * um);
  }

  e[4][0] = k.s2 * ((c2 * sq * t2 - c1 * (u5 * t1)) * vn) + (visc5 + k.s1c1345 * t2 * u5);
  e[4][N] = k.s2c1 * (u5 * t1) - k.s2half_c2 * (sq_n * t2) - k.s1_r43c34m * t2 * un;
  e[4][4] = k.s2c1 * vn - k.s1c1345 * t1 - k.s1diss[4];
}

/// s = e * v over the nonzero entries of a neighbour block.
template <int N>
inline void block_times(const double e[kM][kM], const double v[kM], double s[kM]) {
#pragma GCC unroll 5
  for (int m = 0; m < kM; ++m) {
    double acc = 0.0;
    bool first = true;
#pragma GCC unroll 5
    for (int n = 0; n < kM; ++n) {
      if (!nonzero<N>(m, n)) continue;
      acc = first ? e[m][n] * v[n] : acc + e[m][n] * v[n];
      first = false;
    }
    s[m] = acc;
  }
}

/// Constants of the diagonal block (the same in both sweeps).
struct DiagonalConsts {
  double inv_d00 = 0;      // 1 / d(0,0), a constant
  double base[kM] = {};    // d(m,m) without the 1/u1 term
  double visc[kM] = {};    // d(m,0) = -visc[m]*t2*u_m, d(m,m) = base[m] + visc[m]*t1 (m = 1..3)
  double visc5[kM] = {};   // d(4,m) = visc5[m]*t2*u_m, d(4,0) = -sum visc5[m]*t3*u_m^2 - ...
  double visc55 = 0;       // ... - visc55*t2*u5, d(4,4) = base[4] + visc55*t1

  explicit DiagonalConsts(const Coefficients& c) {
    const double dt2 = c.dt * 2.0;
    const double tsum = c.tx1 + c.ty1 + c.tz1;
    for (int m = 0; m < kM; ++m) base[m] = 1.0 + dt2 * (c.tx1 * c.dx[m] + c.ty1 * c.dy[m] + c.tz1 * c.dz[m]);
    inv_d00 = 1.0 / base[0];
    for (int m = 1; m < 4; ++m) {
      const double kx = m == 1 ? r43 : 1.0;
      const double ky = m == 2 ? r43 : 1.0;
      const double kz = m == 3 ? r43 : 1.0;
      visc[m] = dt2 * c34 * (c.tx1 * kx + c.ty1 * ky + c.tz1 * kz);
      visc5[m] = dt2 * (c34 * (c.tx1 * kx + c.ty1 * ky + c.tz1 * kz) - c1345 * tsum);
    }
    visc55 = dt2 * c1345 * tsum;
  }
};

/// The factors of the diagonal block that the elimination uses (the block is
/// lower triangular: its first column, its diagonal and its last row).
/// mult[m-1] = d(m,0)/d(0,0) (m = 1..4), inv[m-1] = 1/d(m,m) (m = 1..4),
/// mult5[m-1] = d(4,m)/d(m,m) (m = 1..3).
struct DiagonalFactors {
  double mult[4];
  double inv[4];
  double mult5[3];
};
constexpr int kDiagonalFactors = 11;

inline DiagonalFactors diagonal_factors(const DiagonalConsts& k, const double q[kM]) {
  const double t1 = q[0];
  const double t2 = t1 * t1;
  const double t3 = t1 * t2;
  DiagonalFactors f{};
  double d40 = -k.visc55 * t2 * q[4];
#pragma GCC unroll 3
  for (int m = 1; m < 4; ++m) {
    const double um = q[m];
    f.mult[m - 1] = (-k.visc[m] * t2 * um) * k.inv_d00;
    f.inv[m - 1] = 1.0 / (k.base[m] + k.visc[m] * t1);
    f.mult5[m - 1] = (k.visc5[m] * t2 * um) * f.inv[m - 1];
    d40 -= k.visc5[m] * t3 * (um * um);
  }
  f.mult[3] = d40 * k.inv_d00;
  f.inv[3] = 1.0 / (k.base[4] + k.visc55 * t1);
  return f;
}

/// r <- d^-1 r: Gaussian elimination without pivoting on the lower
/// triangular diagonal block (the structurally zero upper part contributes
/// nothing and is skipped).
inline void diagonal_solve(const DiagonalFactors& f, double inv_d00, double r[kM]) {
  r[1] -= r[0] * f.mult[0];
  r[2] -= r[0] * f.mult[1];
  r[3] -= r[0] * f.mult[2];
  r[4] -= r[0] * f.mult[3];
  r[4] -= r[1] * f.mult5[0];
  r[4] -= r[2] * f.mult5[1];
  r[4] -= r[3] * f.mult5[2];
  r[4] *= f.inv[3];
  r[3] *= f.inv[2];
  r[2] *= f.inv[1];
  r[1] *= f.inv[0];
  r[0] *= inv_d00;
}

// ---------------------------------------------------------------------------
// Row scratch: structure-of-arrays copies, one array of `stride` doubles per
// component.

struct SweepConsts {
  NeighbourConsts x, y, z;
  DiagonalConsts diag;
  double omega;

  SweepConsts(const Coefficients& c, double sign)
      : x(sign * c.dt * c.tx2, c.dt * c.tx1, c.dx),
        y(sign * c.dt * c.ty2, c.dt * c.ty1, c.dy),
        z(sign * c.dt * c.tz2, c.dt * c.tz1, c.dz),
        diag(c),
        omega(c.omega) {}
};

// Array indices inside the workspace.
constexpr int kStateRows = 3;                     // u rows: this row, j neighbour, k neighbour
constexpr int kVRows = 3;                         // v rows: this row, j neighbour, k neighbour
constexpr int kINeighbourEntries = 16;            // nonconstant entries of the i-neighbour block
constexpr int kArrays = kM * kStateRows + kM * kVRows + kM /*partial rhs*/ + kINeighbourEntries +
                        kDiagonalFactors + kM /*swept row*/;

struct RowScratch {
  double* state[kStateRows][kM];  // 1/u1, u2, u3, u4, u5
  double* v[kVRows][kM];
  double* rhs[kM];
  double* iblock[kINeighbourEntries];
  double* diag[kDiagonalFactors];
  double* swept[kM];
};

std::size_t scratch_stride(int nx) { return (std::size_t(nx) + 7) / 8 * 8; }

RowScratch carve(std::vector<double>& blocks, int nx) {
  const std::size_t stride = scratch_stride(nx);
  auto base = reinterpret_cast<std::uintptr_t>(blocks.data());
  double* p = blocks.data() + ((64 - base % 64) % 64) / sizeof(double);
  RowScratch s{};
  auto take = [&] {
    double* q = p;
    p += stride;
    return q;
  };
  for (auto& row : s.state)
    for (auto& a : row) a = take();
  for (auto& row : s.v)
    for (auto& a : row) a = take();
  for (auto& a : s.rhs) a = take();
  for (auto& a : s.iblock) a = take();
  for (auto& a : s.diag) a = take();
  for (auto& a : s.swept) a = take();
  return s;
}

/// state[.][i] <- (1/u1, u2, u3, u4, u5) of u row (k, j), i in [0, nx).
void load_state(const Field5& u, int k, int j, int nx, double* const dst[kM]) {
  const double* __restrict row = u.row(k, j);
  double* __restrict r = dst[0];
  double* __restrict a = dst[1];
  double* __restrict b = dst[2];
  double* __restrict c = dst[3];
  double* __restrict d = dst[4];
  for (int i = 0; i < nx; ++i) {
    r[i] = row[kM * i];
    a[i] = row[kM * i + 1];
    b[i] = row[kM * i + 2];
    c[i] = row[kM * i + 3];
    d[i] = row[kM * i + 4];
  }
  for (int i = 0; i < nx; ++i) r[i] = 1.0 / r[i];
}

/// v[.][i] <- rsd row (k, j), i in [0, nx).
void load_row(const Field5& f, int k, int j, int nx, double* const dst[kM]) {
  const double* __restrict row = f.row(k, j);
  double* __restrict a = dst[0];
  double* __restrict b = dst[1];
  double* __restrict c = dst[2];
  double* __restrict d = dst[3];
  double* __restrict e = dst[4];
  for (int i = 0; i < nx; ++i) {
    a[i] = row[kM * i];
    b[i] = row[kM * i + 1];
    c[i] = row[kM * i + 2];
    d[i] = row[kM * i + 3];
    e[i] = row[kM * i + 4];
  }
}

/// Stage A. sign_v: the lower sweep starts from the row itself
/// (rhs = v - omega*(Lz vk) - omega*(Ly vj)); the upper sweep only
/// accumulates the neighbours (rhs = omega*(Uz vk) + omega*(Uy vj)).
/// The i-neighbour block is taken at i + di.
template <bool kLower>
void stage_a(const SweepConsts& K, int nx, const RowScratch& s, int this_row, int j_row, int k_row) {
  constexpr int di = kLower ? -1 : 1;
  const double omega = K.omega;
  const int hi = nx - 1;
#pragma GCC ivdep
  for (int i = 1; i < hi; ++i) {
    double q[kM], v[kM], e[kM][kM], sz[kM], sy[kM];
    // k neighbour
    for (int m = 0; m < kM; ++m) q[m] = s.state[k_row][m][i];
    for (int m = 0; m < kM; ++m) v[m] = s.v[k_row][m][i];
    neighbour_block<3>(K.z, q, e);
    block_times<3>(e, v, sz);
    // j neighbour
    for (int m = 0; m < kM; ++m) q[m] = s.state[j_row][m][i];
    for (int m = 0; m < kM; ++m) v[m] = s.v[j_row][m][i];
    neighbour_block<2>(K.y, q, e);
    block_times<2>(e, v, sy);
    for (int m = 0; m < kM; ++m) {
      if constexpr (kLower)
        s.rhs[m][i] = (s.v[this_row][m][i] - omega * sz[m]) - omega * sy[m];
      else
        s.rhs[m][i] = omega * sz[m] + omega * sy[m];
    }
    // i neighbour
    for (int m = 0; m < kM; ++m) q[m] = s.state[this_row][m][i + di];
    neighbour_block<1>(K.x, q, e);
    int n = 0;
    for (int m = 0; m < kM; ++m)
      for (int l = 0; l < kM; ++l)
        if (nonzero<1>(m, l) && !(m == 0)) s.iblock[n++][i] = e[m][l];
    // diagonal
    for (int m = 0; m < kM; ++m) q[m] = s.state[this_row][m][i];
    const DiagonalFactors f = diagonal_factors(K.diag, q);
    for (int m = 0; m < 4; ++m) s.diag[m][i] = f.mult[m];
    for (int m = 0; m < 4; ++m) s.diag[4 + m][i] = f.inv[m];
    for (int m = 0; m < 3; ++m) s.diag[8 + m][i] = f.mult5[m];
  }
}

/// Stage B: the recurrence along i.
template <bool kLower>
void stage_b(const SweepConsts& K, int nx, const RowScratch& s, int this_row, double* __restrict out) {
  const double omega = K.omega;
  const double e00 = -K.x.s1diss[0];
  const double e01 = K.x.s2;
  const double inv_d00 = K.diag.inv_d00;
  double prev[kM];
  const int start = kLower ? 1 : nx - 2;
  const int step = kLower ? 1 : -1;
  for (int m = 0; m < kM; ++m) prev[m] = out[kM * (start - step) + m];
  for (int i = start, cnt = 0; cnt < nx - 2; i += step, ++cnt) {
    double e[kM][kM];
    e[0][0] = e00;
    e[0][1] = e01;
    int n = 0;
    for (int m = 1; m < kM; ++m)
      for (int l = 0; l < kM; ++l)
        if (nonzero<1>(m, l)) e[m][l] = s.iblock[n++][i];
    double sx[kM];
    block_times<1>(e, prev, sx);
    DiagonalFactors f;
    for (int m = 0; m < 4; ++m) f.mult[m] = s.diag[m][i];
    for (int m = 0; m < 4; ++m) f.inv[m] = s.diag[4 + m][i];
    for (int m = 0; m < 3; ++m) f.mult5[m] = s.diag[8 + m][i];
    double r[kM];
    for (int m = 0; m < kM; ++m) {
      if constexpr (kLower)
        r[m] = s.rhs[m][i] - omega * sx[m];
      else
        r[m] = s.rhs[m][i] + omega * sx[m];
    }
    diagonal_solve(f, inv_d00, r);
    for (int m = 0; m < kM; ++m) {
      const double x = kLower ? r[m] : s.v[this_row][m][i] - r[m];
      out[kM * i + m] = x;
      s.swept[m][i] = x;
      prev[m] = x;
    }
  }
}

void prefetch_row(const double* row, int nx) {
  const char* p = reinterpret_cast<const char*>(row);
  const std::size_t bytes = sizeof(double) * kM * std::size_t(nx);
  for (std::size_t b = 0; b < bytes; b += 64) __builtin_prefetch(p + b);
}

template <bool kLower>
void sweep_plane(const Coefficients& c, const GridSize& g, ColumnRange owned, int k, const Field5& u, Field5& rsd,
                 SweepWorkspace& ws, SweepTimes& times) {
  const SweepConsts K(c, kLower ? -1.0 : 1.0);
  const int nx = g.nx;
  RowScratch s = carve(ws.blocks, nx);
  constexpr int dj = kLower ? -1 : 1;
  const int kn = k + dj;
  int this_row = 0, j_row = 1;
  constexpr int k_row = 2;
  const int count = owned.width();
  double t0 = wall_seconds();
  for (int cnt = 0; cnt < count; ++cnt) {
    const int j = kLower ? owned.begin + cnt : owned.end - 1 - cnt;
    if (cnt == 0) {
      load_state(u, k, j + dj, nx, s.state[j_row]);
      load_row(rsd, k, j + dj, nx, s.v[j_row]);
    } else {
      std::swap(this_row, j_row);  // this row's state becomes the next row's j neighbour
      for (int m = 0; m < kM; ++m) std::swap(s.v[j_row][m], s.swept[m]);
    }
    if (cnt + 1 < count) {
      prefetch_row(u.row(k, j - dj), nx);
      prefetch_row(u.row(kn, j - dj), nx);
      prefetch_row(rsd.row(k, j - dj), nx);
      prefetch_row(rsd.row(kn, j - dj), nx);
    }
    load_state(u, k, j, nx, s.state[this_row]);
    load_state(u, kn, j, nx, s.state[k_row]);
    load_row(rsd, kn, j, nx, s.v[k_row]);
    load_row(rsd, k, j, nx, s.v[this_row]);
    stage_a<kLower>(K, nx, s, this_row, j_row, k_row);
    const double t1 = wall_seconds();
    stage_b<kLower>(K, nx, s, this_row, rsd.row(k, j));
    const double t2 = wall_seconds();
    times.jacobian += t1 - t0;
    times.solve += t2 - t1;
    t0 = t2;
  }
}

}  // namespace

SweepWorkspace::SweepWorkspace(const GridSize& g) : blocks(std::size_t(kArrays) * scratch_stride(g.nx) + 8) {}

void lower_sweep_plane(const Coefficients& c, const GridSize& g, ColumnRange owned, int k, const Field5& u,
                       Field5& rsd, SweepWorkspace& ws, SweepTimes& times) {
  sweep_plane<true>(c, g, owned, k, u, rsd, ws, times);
}

void upper_sweep_plane(const Coefficients& c, const GridSize& g, ColumnRange owned, int k, const Field5& u,
                       Field5& rsd, SweepWorkspace& ws, SweepTimes& times) {
  sweep_plane<false>(c, g, owned, k, u, rsd, ws, times);
}

}  // namespace npblu
