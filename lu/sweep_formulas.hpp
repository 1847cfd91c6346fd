#pragma once
// The block formulas of the SSOR sweeps (NPB LU's jacld/jacu and the block
// solves of blts/buts) on kW points at a time, shared by both sweep kernels
// (lu/sweeps.cpp). Per level (lu/kernel_levels.hpp), like lu/simd.hpp.
//
// The block entries are NPB's formulas rewritten in terms of the velocities
// u_m/u1 with the constant factors combined; the elimination is NPB's
// Gaussian elimination without pivoting, with the structural zeros of the
// diagonal block (it is lower triangular) skipped. Only the rounding differs
// from NPB. Which products fuse into multiply-adds is written out (fma,
// fnma: lu/simd.hpp) and the kernels are compiled without contraction, so
// that a point's bits do not depend on the width, on what the compiler
// inlined, or on which kernel swept it.
#ifndef NPBLU_KERNEL_NS
#error "lu/sweep_formulas.hpp belongs to the per-level kernels (NPBLU_KERNEL_NS)"
#endif

#include <array>

#include "lu/coefficients.hpp"
#include "lu/field.hpp"
#include "lu/simd.hpp"

namespace npblu::NPBLU_KERNEL_NS::sweep_formulas {
// Internal linkage, as if each kernel's file had its own copy: GCC inlines
// these into the kernels' loops as it did when they lived in one file (with
// external linkage it kept some out of line, and pass A took up to 40%
// longer at v4).
namespace {

constexpr int kM = Field5::kComponents;

constexpr double c1 = Coefficients::c1;
constexpr double c2 = Coefficients::c2;
constexpr double r43 = 4.0 / 3.0;
constexpr double c34 = Coefficients::c3 * Coefficients::c4;
constexpr double c1345 = Coefficients::c1 * Coefficients::c3 * Coefficients::c4 * Coefficients::c5;

using simd::fma;
using simd::fnma;
using simd::kW;
using simd::splat;
using simd::vd;

/// The state at a point as the block formulas use it: t1 = 1/u1, vel[m] =
/// u_{m+2}/u1, e = u5/u1, qv = |vel|^2.
struct PointState {
  vd t1;
  vd vel[3];
  vd e;
  vd qv;
};
constexpr int kStateFields = 6;

inline PointState point_state(const vd q[kM]) {
  PointState p;
  p.t1 = 1.0 / q[0];
  p.vel[0] = q[1] * p.t1;
  p.vel[1] = q[2] * p.t1;
  p.vel[2] = q[3] * p.t1;
  p.e = q[4] * p.t1;
  p.qv = fma(p.vel[2], p.vel[2], fma(p.vel[1], p.vel[1], p.vel[0] * p.vel[0]));
  return p;
}

/// Constants of a neighbour block (flux Jacobian, viscous and dissipation
/// parts in one direction): s2 = -/+ dt*t?2 (lower/upper sweep), s1 = dt*t?1,
/// diss = d?1..d?5.
struct NeighbourConsts {
  double s2 = 0, s2c1 = 0, s2c2 = 0, neg_s2c2 = 0, s2half_c2 = 0, s2_2mc2 = 0;
  double s1c34 = 0, s1r43c34 = 0, s1c1345 = 0, s1_c34m = 0, s1_r43c34m = 0, s1_dr43 = 0;
  double s1diss[kM] = {}, neg_s1diss[kM] = {};

  NeighbourConsts() = default;
  NeighbourConsts(double s2_, double s1, const std::array<double, 5>& diss)
      : s2(s2_),
        s2c1(s2_ * c1),
        s2c2(s2_ * c2),
        neg_s2c2(-(s2_ * c2)),
        s2half_c2(s2_ * 0.5 * c2),
        s2_2mc2(s2_ * (2.0 - c2)),
        s1c34(s1 * c34),
        s1r43c34(s1 * r43 * c34),
        s1c1345(s1 * c1345),
        s1_c34m(s1 * (c34 - c1345)),
        s1_r43c34m(s1 * (r43 * c34 - c1345)),
        s1_dr43(s1 * (r43 * c34 - c34)) {
    for (int m = 0; m < kM; ++m) {
      s1diss[m] = s1 * diss[m];
      neg_s1diss[m] = -s1diss[m];
    }
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
constexpr int kBlockEntries = 18;

/// The tangential momentum components of direction N.
template <int N>
constexpr int kT1 = N == 1 ? 2 : 1;
template <int N>
constexpr int kT2 = N == 3 ? 2 : 3;

/// The parts of a neighbour block shared by its entries and its product.
struct NeighbourCommon {
  vd vn, tv, vn2, a, na;
  vd e_n0, e_nn, e_40, e_4n, e_44, n_c;
};

template <int N>
inline NeighbourCommon neighbour_common(const NeighbourConsts& k, const PointState& p) {
  NeighbourCommon c;
  c.vn = p.vel[N - 1];
  c.tv = p.t1 * c.vn;
  c.vn2 = c.vn * c.vn;
  c.a = k.s2 * c.vn;
  c.na = fma(k.s1c34, p.t1, -c.a);  // -(e[T][T] + s1*dT); e[T][0] = vT*na
  // e[N][0] = s2*(c2/2*qv - vn^2) + s1*r43*c34*t1*vn
  c.e_n0 = fma(k.s1r43c34, c.tv, fnma(k.s2, c.vn2, k.s2half_c2 * p.qv));
  // e[N][N] = s2*(2-c2)*vn - s1*r43*c34*t1 - s1*dN
  c.e_nn = fma(k.s2_2mc2, c.vn, -fma(k.s1r43c34, p.t1, splat(k.s1diss[N])));
  // e[4][0] = s2*vn*(c2*qv - c1*e) + t1*s1*(sum_m (c34' - c1345)*vel_m^2 + c1345*e),
  // c34' = r43*c34 for m = N, c34 otherwise
  const vd flux = fnma(c1, p.e, c2 * p.qv);
  const vd visc = fma(k.s1c1345, p.e, fma(k.s1_dr43, c.vn2, k.s1_c34m * p.qv));
  c.e_40 = fma(c.a, flux, p.t1 * visc);
  // e[4][N] = s2*(c1*e - c2/2*(qv + 2 vn^2)) - s1*(r43*c34 - c1345)*t1*vn
  c.e_4n = fnma(k.s1_r43c34m, c.tv, fnma(k.s2half_c2, fma(2.0, c.vn2, p.qv), k.s2c1 * p.e));
  // e[4][4] = s2*c1*vn - s1*c1345*t1 - s1*d5
  c.e_44 = fma(k.s2c1, c.vn, -fma(k.s1c1345, p.t1, splat(k.s1diss[4])));
  // e[4][T] = vT*n_c
  c.n_c = fnma(k.s1_c34m, p.t1, k.neg_s2c2 * c.vn);
  return c;
}

/// s = B r for the neighbour block B at a point, without forming B:
///   row 0: -s1*d1*r0 + s2*rN
///   row T: e[T][0]*r0 + e[T][T]*rT + s2*vT*rN = na*(vT*r0 - rT) - s1*dT*rT + vT*s2*rN
///   row N: e[N][0]*r0 + e[N][N]*rN - s2*c2*(vT1*rT1 + vT2*rT2) + s2*c2*r4
///   row 4: e[4][0]*r0 + n_c*(vT1*rT1 + vT2*rT2) + e[4][N]*rN + e[4][4]*r4
template <int N>
[[gnu::always_inline]] inline void neighbour_apply(const NeighbourConsts& k, const PointState& p,
                                                   const vd r[kM], vd s[kM]) {
  constexpr int t1 = kT1<N>, t2 = kT2<N>;
  const NeighbourCommon c = neighbour_common<N>(k, p);
  const vd vt1 = p.vel[t1 - 1];
  const vd vt2 = p.vel[t2 - 1];
  const vd s2rn = k.s2 * r[N];
  const vd dot_t = fma(vt2, r[t2], vt1 * r[t1]);
  s[0] = fnma(k.s1diss[0], r[0], s2rn);
  s[t1] = fma(vt1, s2rn, fnma(k.s1diss[t1], r[t1], c.na * fma(vt1, r[0], -r[t1])));
  s[t2] = fma(vt2, s2rn, fnma(k.s1diss[t2], r[t2], c.na * fma(vt2, r[0], -r[t2])));
  s[N] = fma(k.s2c2, r[4] - dot_t, fma(c.e_nn, r[N], c.e_n0 * r[0]));
  s[4] = fma(c.e_44, r[4], fma(c.e_4n, r[N], fma(c.n_c, dot_t, c.e_40 * r[0])));
}

/// The entries of the neighbour block at a point (structural zeros not set).
template <int N>
inline void neighbour_block(const NeighbourConsts& k, const PointState& p, vd e[kM][kM]) {
  const NeighbourCommon c = neighbour_common<N>(k, p);
  e[0][0] = vd{} + k.neg_s1diss[0];
  e[0][N] = vd{} + k.s2;
  e[N][0] = c.e_n0;
  e[N][N] = c.e_nn;
  e[N][4] = vd{} + k.s2c2;
  auto tangential = [&]<int m>() {
    const vd vm = p.vel[m - 1];
    e[m][0] = vm * c.na;
    e[m][m] = k.neg_s1diss[m] - c.na;
    e[m][N] = k.s2 * vm;
    e[N][m] = k.neg_s2c2 * vm;
    e[4][m] = vm * c.n_c;
  };
  tangential.template operator()<kT1<N>>();
  tangential.template operator()<kT2<N>>();
  e[4][0] = c.e_40;
  e[4][N] = c.e_4n;
  e[4][4] = c.e_44;
}

/// Constants of the diagonal block (the same in both sweeps):
///   d(0,0) = base[0], d(m,m) = base[m] + visc[m]*t1, d(4,4) = base[4] + visc55*t1,
///   d(m,0) = -visc[m]*t1*vel_m, d(4,m) = visc5[m]*t1*vel_m (m = 1..3),
///   d(4,0) = -t1*(sum_m visc5[m]*vel_m^2 + visc55*e).
struct DiagonalConsts {
  double inv_d00 = 0;
  double base[kM] = {};
  double visc[4] = {};
  double visc5[4] = {};
  double visc55 = 0;
  double neg_visc_inv[4] = {};   // -visc[m]/d(0,0)
  double neg_visc5_inv[4] = {};  // -visc5[m]/d(0,0)
  double neg_visc55_inv = 0;     // -visc55/d(0,0)

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
      neg_visc_inv[m] = -visc[m] * inv_d00;
      neg_visc5_inv[m] = -visc5[m] * inv_d00;
    }
    visc55 = dt2 * c1345 * tsum;
    neg_visc55_inv = -visc55 * inv_d00;
  }
};

/// What the elimination with d uses: mult[m-1] = d(m,0)/d(0,0) (m = 1..4),
/// inv[m-1] = 1/d(m,m) (m = 1..4), mult5[m-1] = d(4,m)/d(m,m) (m = 1..3).
struct DiagonalFactors {
  vd mult[4];
  vd inv[4];
  vd mult5[3];
};

inline DiagonalFactors diagonal_factors(const DiagonalConsts& k, const PointState& p) {
  const vd t1 = p.t1;
  DiagonalFactors f;
  f.inv[0] = 1.0 / fma(k.visc[1], t1, splat(k.base[1]));
  f.inv[1] = 1.0 / fma(k.visc[2], t1, splat(k.base[2]));
  f.inv[2] = 1.0 / fma(k.visc[3], t1, splat(k.base[3]));
  f.inv[3] = 1.0 / fma(k.visc55, t1, splat(k.base[4]));
  vd s = k.neg_visc55_inv * p.e;
  for (int m = 1; m < 4; ++m) {
    const vd vm = p.vel[m - 1];
    const vd tvm = t1 * vm;
    f.mult[m - 1] = k.neg_visc_inv[m] * tvm;
    f.mult5[m - 1] = (k.visc5[m] * tvm) * f.inv[m - 1];
    s = fma(k.neg_visc5_inv[m], vm * vm, s);
  }
  f.mult[3] = t1 * s;
  return f;
}

/// r <- d^-1 r: forward elimination and back substitution without pivoting;
/// d is lower triangular, so the back substitution is only the scaling.
inline void diagonal_solve(const DiagonalFactors& f, double inv_d00, vd r[kM]) {
  r[1] = fnma(r[0], f.mult[0], r[1]);
  r[2] = fnma(r[0], f.mult[1], r[2]);
  r[3] = fnma(r[0], f.mult[2], r[3]);
  r[4] = fnma(r[0], f.mult[3], r[4]);
  r[4] = fnma(r[1], f.mult5[0], r[4]);
  r[4] = fnma(r[2], f.mult5[1], r[4]);
  r[4] = fnma(r[3], f.mult5[2], r[4]);
  r[4] *= f.inv[3];
  r[3] *= f.inv[2];
  r[2] *= f.inv[1];
  r[1] *= f.inv[0];
  r[0] *= inv_d00;
}

/// M = d^-1 (omega X) for an x-direction neighbour block X: diagonal_solve
/// on each column of omega X, skipping the structural zeros. Stored column
/// by column over X's nonzero pattern: column 0 rows 0-4, column 1 rows 0-4,
/// column 2 rows 1,2,4, column 3 rows 1,3,4, column 4 rows 1,4.
inline void fold_x_block(const DiagonalFactors& f, double inv_d00, double omega, const vd e[kM][kM],
                         vd out[kBlockEntries]) {
  const double w0 = omega * inv_d00;
  const vd w1 = omega * f.inv[0];
  const vd w2 = omega * f.inv[1];
  const vd w3 = omega * f.inv[2];
  const vd w4 = omega * f.inv[3];
  int q = 0;
  auto put = [&](vd x) { out[q++] = x; };
  for (int l = 0; l < 2; ++l) {
    const vd r0 = e[0][l];
    const vd r1 = fnma(r0, f.mult[0], e[1][l]);
    const vd r2 = fnma(r0, f.mult[1], e[2][l]);
    const vd r3 = fnma(r0, f.mult[2], e[3][l]);
    const vd r4 =
        fnma(r3, f.mult5[2], fnma(r2, f.mult5[1], fnma(r1, f.mult5[0], fnma(r0, f.mult[3], e[4][l]))));
    put(r0 * w0);
    put(r1 * w1);
    put(r2 * w2);
    put(r3 * w3);
    put(r4 * w4);
  }
  put(e[1][2] * w1);
  put(e[2][2] * w2);
  put(fnma(e[2][2], f.mult5[1], fnma(e[1][2], f.mult5[0], e[4][2])) * w4);
  put(e[1][3] * w1);
  put(e[3][3] * w3);
  put(fnma(e[3][3], f.mult5[2], fnma(e[1][3], f.mult5[0], e[4][3])) * w4);
  put(e[1][4] * w1);
  put(fnma(e[1][4], f.mult5[0], e[4][4]) * w4);
}

/// Pass B at a point: x <- y - M x (x the swept values at the point before),
/// for one row (T = double) or a row in each lane (T = vd): the same
/// operations either way. The recurrence's speed is the latency of its
/// chain from one point's x to the next's (plane by plane, pass B is that
/// chain alone), so each row's sum is grouped for it: the five-term rows 1
/// and 4 as two partial sums and a difference, each term placed where its x
/// arrives in time. Counted in operations of equal latency, the longest
/// cycle through the points is 2.5 operations a point; it was 3.5 with rows 1
/// and 4 summed from x2 on (the same six operations a row: no more work where
/// pass B is bound by the floating-point ports instead, as on Zen 5). Plane
/// by plane on an Intel Xeon, pass B took 8-12% less time at v4 and v3
/// (docs/performance.md).
template <class T, class Y, class Mat>
inline void pass_b_point(const Y& y, const Mat& M, T x[kM]) {
  const T n0 = fnma(M(5), x[1], fnma(M(0), x[0], y(0)));
  const T n1 = fnma(M(6), x[1], fnma(M(10), x[2], y(1))) - fma(M(16), x[4], fma(M(13), x[3], M(1) * x[0]));
  const T n2 = fnma(M(11), x[2], fnma(M(7), x[1], fnma(M(2), x[0], y(2))));
  const T n3 = fnma(M(14), x[3], fnma(M(8), x[1], fnma(M(3), x[0], y(3))));
  const T n4 = fnma(M(12), x[2], fnma(M(9), x[1], y(4))) - fma(M(17), x[4], fma(M(15), x[3], M(4) * x[0]));
  x[0] = n0, x[1] = n1, x[2] = n2, x[3] = n3, x[4] = n4;
}

struct SweepConsts {
  NeighbourConsts x, y, z;
  DiagonalConsts diag;
  double omega;
  double dt;

  SweepConsts(const Coefficients& c, double sign)
      : x(sign * c.dt * c.tx2, c.dt * c.tx1, c.dx),
        y(sign * c.dt * c.ty2, c.dt * c.ty1, c.dy),
        z(sign * c.dt * c.tz2, c.dt * c.tz1, c.dz),
        diag(c),
        omega(c.omega),
        dt(c.dt) {}
};

/// y and M at kW points (pass A's output, pass B's input).
struct Fold {
  vd y[kM];
  vd m[kBlockEntries];
};

/// The right-hand side of the points' solve from rsd r as stored and the k
/// and j neighbour products sz and sy, in w:
///  lower: w = r dt - omega*(Lz vk) - omega*(Ly vj)
///  upper: w = omega*(Uz vk) + omega*(Uy vj)
/// The lower sweep's r dt is NPB's whole-field rsd *= dt, taken here as the
/// row is read: nothing else reads the scaled values (pass B overwrites them).
template <bool kLower>
[[gnu::always_inline]] inline void point_rhs(const SweepConsts& K, const vd r[kM], const vd sz[kM],
                                             const vd sy[kM], vd w[kM]) {
  const double omega = K.omega;
  for (int m = 0; m < kM; ++m)
    w[m] = kLower ? fnma(omega, sy[m], fnma(omega, sz[m], r[m] * K.dt)) : fma(omega, sz[m], omega * sy[m]);
}

/// y and M once w holds d^-1 rhs: lower y = w, upper y = r - w.
template <bool kLower>
[[gnu::always_inline]] inline void point_fold(const SweepConsts& K, const DiagonalFactors& f, const vd r[kM],
                                              const vd w[kM], const vd e[kM][kM], Fold& out) {
  for (int m = 0; m < kM; ++m) out.y[m] = kLower ? w[m] : r[m] - w[m];
  fold_x_block(f, K.diag.inv_d00, K.omega, e, out.m);
}

}  // namespace
}  // namespace npblu::NPBLU_KERNEL_NS::sweep_formulas
