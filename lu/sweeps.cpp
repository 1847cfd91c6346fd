// The SSOR triangular sweeps of NPB LU (jacld + blts, jacu + buts), one k
// plane at a time.
//
// Each (k, j) row is done in two passes.
//  A. Vectorised across i, kW points at a time: everything that does not
//     depend on the recurrence along i. At every point it forms the diagonal
//     block d and the three neighbour blocks from u, applies the k and j
//     neighbour blocks to the already swept rows, and runs the elimination
//     with d on the result and on the columns of omega times the i neighbour
//     block X. By linearity the point's solve becomes
//       lower: v(i) = d^-1 (rhs - omega X v(i-1))     = y - M v(i-1)
//       upper: v(i) = v - d^-1 (rhs + omega X v(i+1)) = y - M v(i+1)
//     and pass A stores y and M = d^-1 (omega X) (which has X's 18 nonzeros).
//  B. Scalar: the recurrence v(i) = y - M v(i -/+ 1) along the row.
// Every point goes through the same code whatever the owned columns are
// (vector lanes are independent and the partial last group of a row runs on
// a padded copy), so results do not depend on the partition.
//
// The block entries are NPB's formulas rewritten in terms of the velocities
// u_m/u1 with the constant factors combined; the elimination is NPB's
// Gaussian elimination without pivoting, with the structural zeros of d (it
// is lower triangular) skipped. Only the rounding differs from NPB.
//
// Timing: pass A (with the state loads) counts as jacobian time, pass B as
// solve time: the plane's seconds split as on every 8th row, whose
// boundaries are read (lu/sampled_split.hpp). Pass A also does the parts of the
// block solve that do not depend on the recurrence (neighbour products,
// elimination with d), so this split overstates "jacobian" relative to NPB's.
#include "lu/sweeps.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "lu/kernel_levels.hpp"
#include "lu/row_update.hpp"
#include "lu/sampled_split.hpp"
#include "lu/simd.hpp"
#include "lu/simd_points.hpp"

namespace npblu::NPBLU_KERNEL_NS {

namespace {

constexpr int kM = Field5::kComponents;

constexpr double c1 = Coefficients::c1;
constexpr double c2 = Coefficients::c2;
constexpr double r43 = 4.0 / 3.0;
constexpr double c34 = Coefficients::c3 * Coefficients::c4;
constexpr double c1345 = Coefficients::c1 * Coefficients::c3 * Coefficients::c4 * Coefficients::c5;

// ---------------------------------------------------------------------------
// SIMD: kW points per vector (lu/simd.hpp; lowered to what the target has).

using simd::kW;
using simd::load;
using simd::store;
using simd::vd;

using simd::load_points;

/// (a[1], ..., a[kW-1], b[0]) and (a[kW-1], b[0], ..., b[kW-2]).
struct ShiftDownMask {
  static constexpr int lane(int t) { return t + 1; }
};
struct ShiftUpMask {
  static constexpr int lane(int t) { return t + kW - 1; }
};
inline vd shift_down(vd a, vd b) { return simd::shuffle<ShiftDownMask>(a, b); }
inline vd shift_up(vd a, vd b) { return simd::shuffle<ShiftUpMask>(a, b); }

// ---------------------------------------------------------------------------
// Block formulas, on kW points at a time.

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
  p.qv = p.vel[0] * p.vel[0] + p.vel[1] * p.vel[1] + p.vel[2] * p.vel[2];
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
  c.na = k.s1c34 * p.t1 - c.a;  // -(e[T][T] + s1*dT); e[T][0] = vT*na
  // e[N][0] = s2*(c2/2*qv - vn^2) + s1*r43*c34*t1*vn
  c.e_n0 = k.s2half_c2 * p.qv - k.s2 * c.vn2 + k.s1r43c34 * c.tv;
  // e[N][N] = s2*(2-c2)*vn - s1*r43*c34*t1 - s1*dN
  c.e_nn = k.s2_2mc2 * c.vn - (k.s1r43c34 * p.t1 + k.s1diss[N]);
  // e[4][0] = s2*vn*(c2*qv - c1*e) + t1*s1*(sum_m (c34' - c1345)*vel_m^2 + c1345*e),
  // c34' = r43*c34 for m = N, c34 otherwise
  c.e_40 = c.a * (c2 * p.qv - c1 * p.e) + p.t1 * (k.s1_c34m * p.qv + k.s1_dr43 * c.vn2 + k.s1c1345 * p.e);
  // e[4][N] = s2*(c1*e - c2/2*(qv + 2 vn^2)) - s1*(r43*c34 - c1345)*t1*vn
  c.e_4n = k.s2c1 * p.e - k.s2half_c2 * (p.qv + 2.0 * c.vn2) - k.s1_r43c34m * c.tv;
  // e[4][4] = s2*c1*vn - s1*c1345*t1 - s1*d5
  c.e_44 = k.s2c1 * c.vn - (k.s1c1345 * p.t1 + k.s1diss[4]);
  // e[4][T] = vT*n_c
  c.n_c = k.neg_s2c2 * c.vn - k.s1_c34m * p.t1;
  return c;
}

/// s = B r for the neighbour block B at a point, without forming B:
///   row 0: -s1*d1*r0 + s2*rN
///   row T: e[T][0]*r0 + e[T][T]*rT + s2*vT*rN = na*(vT*r0 - rT) - s1*dT*rT + vT*s2*rN
///   row N: e[N][0]*r0 + e[N][N]*rN - s2*c2*(vT1*rT1 + vT2*rT2) + s2*c2*r4
///   row 4: e[4][0]*r0 + n_c*(vT1*rT1 + vT2*rT2) + e[4][N]*rN + e[4][4]*r4
template <int N>
inline void neighbour_apply(const NeighbourConsts& k, const PointState& p, const vd r[kM], vd s[kM]) {
  constexpr int t1 = kT1<N>, t2 = kT2<N>;
  const NeighbourCommon c = neighbour_common<N>(k, p);
  const vd vt1 = p.vel[t1 - 1];
  const vd vt2 = p.vel[t2 - 1];
  const vd s2rn = k.s2 * r[N];
  const vd dot_t = vt1 * r[t1] + vt2 * r[t2];
  s[0] = s2rn - k.s1diss[0] * r[0];
  s[t1] = c.na * (vt1 * r[0] - r[t1]) - k.s1diss[t1] * r[t1] + vt1 * s2rn;
  s[t2] = c.na * (vt2 * r[0] - r[t2]) - k.s1diss[t2] * r[t2] + vt2 * s2rn;
  s[N] = c.e_n0 * r[0] + c.e_nn * r[N] + k.s2c2 * (r[4] - dot_t);
  s[4] = c.e_40 * r[0] + c.n_c * dot_t + c.e_4n * r[N] + c.e_44 * r[4];
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
  f.inv[0] = 1.0 / (k.base[1] + k.visc[1] * t1);
  f.inv[1] = 1.0 / (k.base[2] + k.visc[2] * t1);
  f.inv[2] = 1.0 / (k.base[3] + k.visc[3] * t1);
  f.inv[3] = 1.0 / (k.base[4] + k.visc55 * t1);
  vd s = k.neg_visc55_inv * p.e;
  for (int m = 1; m < 4; ++m) {
    const vd vm = p.vel[m - 1];
    const vd tvm = t1 * vm;
    f.mult[m - 1] = k.neg_visc_inv[m] * tvm;
    f.mult5[m - 1] = (k.visc5[m] * tvm) * f.inv[m - 1];
    s += k.neg_visc5_inv[m] * (vm * vm);
  }
  f.mult[3] = t1 * s;
  return f;
}

/// r <- d^-1 r: forward elimination and back substitution without pivoting;
/// d is lower triangular, so the back substitution is only the scaling.
inline void diagonal_solve(const DiagonalFactors& f, double inv_d00, vd r[kM]) {
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

/// M = d^-1 (omega X) for an x-direction neighbour block X: diagonal_solve
/// on each column of omega X, skipping the structural zeros. Stored column
/// by column over X's nonzero pattern: column 0 rows 0-4, column 1 rows 0-4,
/// column 2 rows 1,2,4, column 3 rows 1,3,4, column 4 rows 1,4.
inline void fold_x_block(const DiagonalFactors& f, double inv_d00, double omega, const vd e[kM][kM],
                         double* out) {
  const double w0 = omega * inv_d00;
  const vd w1 = omega * f.inv[0];
  const vd w2 = omega * f.inv[1];
  const vd w3 = omega * f.inv[2];
  const vd w4 = omega * f.inv[3];
  int q = 0;
  auto put = [&](vd x) { store(out + (q++) * kW, x); };
  for (int l = 0; l < 2; ++l) {
    const vd r0 = e[0][l];
    const vd r1 = e[1][l] - r0 * f.mult[0];
    const vd r2 = e[2][l] - r0 * f.mult[1];
    const vd r3 = e[3][l] - r0 * f.mult[2];
    const vd r4 = e[4][l] - r0 * f.mult[3] - r1 * f.mult5[0] - r2 * f.mult5[1] - r3 * f.mult5[2];
    put(r0 * w0);
    put(r1 * w1);
    put(r2 * w2);
    put(r3 * w3);
    put(r4 * w4);
  }
  put(e[1][2] * w1);
  put(e[2][2] * w2);
  put((e[4][2] - e[1][2] * f.mult5[0] - e[2][2] * f.mult5[1]) * w4);
  put(e[1][3] * w1);
  put(e[3][3] * w3);
  put((e[4][3] - e[1][3] * f.mult5[0] - e[3][3] * f.mult5[2]) * w4);
  put(e[1][4] * w1);
  put((e[4][4] - e[1][4] * f.mult5[0]) * w4);
}

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

// ---------------------------------------------------------------------------
// Workspace: row buffers blocked by kW points (group g holds the fields of
// points [origin + g*kW, origin + (g+1)*kW), one kW-vector per field). The
// state buffers have a spare group on each side (the i neighbours of the end
// groups).

constexpr int kFoldFields = kM + kBlockEntries;  // y, then M

// The groups of pass A hold the interior points 1..nx-2 and start at point
// `origin`, 0 or 1: as few groups as either gives, ceil((nx - 1 - origin) /
// kW). Point 1 starts them when nx - 2 is a multiple of kW (class B at 4
// lanes: 25 groups instead of 26; class C at 4 and 8 lanes: 40 and 20 instead
// of 41 and 21), point 0 otherwise (class W, nx = 33, then needs 8 groups at
// 4 lanes and 4 at 8, not the 9 and 5 of a group per kW points of the row):
// a group past the interior computes only points never read. Points in lanes
// are independent, so the origin does not change a bit.
//
// The row states are those of the same groups. The i neighbour past the
// interior (point 0 for point 1 in the lower sweep, nx-1 for nx-2 in the
// upper) may fall in a spare group, which holds a state at rest: its block
// enters only M, which multiplies rsd there, zero on the boundary, so any
// finite state gives the same bits.
struct Layout {
  int origin, groups;
  std::size_t state, fold, zero_row, total;

  explicit Layout(int nx)
      : origin((nx - 2) % kW == 0 ? 1 : 0),
        groups((nx - 1 - origin + kW - 1) / kW),
        state(std::size_t(groups + 2) * kStateFields * kW),
        fold(std::size_t(groups) * kFoldFields * kW),
        zero_row(std::size_t(kM) * nx),
        total(2 * state + fold + zero_row) {}
  /// The first point of group g.
  [[nodiscard]] int first_point(int g) const { return origin + g * kW; }
};

struct Buffers {
  double* state_cur;   // this row's state (group g at g+1)
  double* state_prev;  // the j neighbour row's state
  double* fold;        // y and M of this row
  double* zero_row;    // a row of zeros: rsd on the domain's boundary (sweep_plane)
};

Buffers carve(double* blocks, const Layout& l) {
  const auto addr = reinterpret_cast<std::uintptr_t>(blocks);
  double* p = blocks + ((64 - addr % 64) % 64) / sizeof(double);
  Buffers b{};
  b.state_cur = p;
  b.state_prev = b.state_cur + l.state;
  b.fold = b.state_prev + l.state;
  b.zero_row = b.fold + l.fold;
  return b;
}

/// A point's fill, repeated for the kW points of a group.
struct GroupFill {
  double d[kM * kW];
  constexpr explicit GroupFill(double first) : d{} {
    for (int i = 0; i < kM * kW; ++i) d[i] = i % kM == 0 ? first : 0.0;
  }
};
constexpr GroupFill kStateFill(1.0);  // a state: density 1, at rest
constexpr GroupFill kZeroFill(0.0);

/// The components of the kW points from `first` (>= 0) of a row of nx
/// points; points past the row's end read `fill`.
inline void load_group(const double* row, int nx, int first, const GroupFill& fill, vd out[kM]) {
  if (first + kW <= nx) {
    load_points(row + kM * first, out);
    return;
  }
  simd::load_points_masked(row + kM * first, kM * (nx - first), fill.d, out);
}

void store_state(const PointState& p, double* o) {
  store(o, p.t1);
  store(o + kW, p.vel[0]);
  store(o + 2 * kW, p.vel[1]);
  store(o + 3 * kW, p.vel[2]);
  store(o + 4 * kW, p.e);
  store(o + 5 * kW, p.qv);
}

void load_state_row(const double* urow, int nx, const Layout& l, double* state) {
  for (int g = 0; g < l.groups; ++g) {
    vd q[kM];
    load_group(urow, nx, l.first_point(g), kStateFill, q);
    store_state(point_state(q), state + std::size_t(g + 1) * kStateFields * kW);
  }
}

/// The spare groups at both ends of a state buffer: a state at rest (Layout).
void fill_spare_states(const Layout& l, double* state) {
  vd q[kM];
  load_points(kStateFill.d, q);
  const PointState rest = point_state(q);
  store_state(rest, state);
  store_state(rest, state + std::size_t(l.groups + 1) * kStateFields * kW);
}

inline PointState state_group(const double* s) {
  return {load(s), {load(s + kW), load(s + 2 * kW), load(s + 3 * kW)}, load(s + 4 * kW), load(s + 5 * kW)};
}

/// The state at the i neighbours (i-1 lower, i+1 upper) of the points of the
/// group whose own state is at s.
template <bool kLower>
inline PointState neighbour_state_group(const double* s) {
  constexpr int f = kStateFields * kW;
  auto at = [&](int field) {
    const vd own = load(s + field * kW);
    return kLower ? shift_up(load(s - f + field * kW), own) : shift_down(own, load(s + f + field * kW));
  };
  return {at(0), {at(1), at(2), at(3)}, at(4), at(5)};
}

/// Asks for group g of a row of the fields (its kW points) in the first-level
/// cache. Pass A does so for the next row's `u` and `rsd` group by group, a
/// row ahead: the next row's update and pass A read them first, and from L2
/// each line cost the row a wait. Asked for all at once at a row's start, into
/// L2 or L1, the row's lines came later and pushed out what the current row
/// still used (Zen 5: this way the sweeps with their updates took 9-17% less
/// time at v3 and v4, docs/performance.md); the next row's k neighbours asked
/// for as well cost more than they saved. Its own row's k neighbours (`u` and
/// `rsd` of plane k -/+ 1, last touched a plane ago) pass A asks for one group
/// ahead of their use: on rows past the first-level cache (class B and C) the
/// hardware's prefetchers left the 8-lane jacobians waiting for them (Zen 5:
/// with the prefetch they took 6-11% less time at v4, the same at 2 and 4
/// lanes; two groups ahead cost 3% at v3). Prefetches never fault: the partial
/// last group may ask past the row's end.
inline void prefetch_group(const double* row, int first) {
  const char* p = reinterpret_cast<const char*>(row + kM * first);
  for (std::size_t off = 0; off < kM * kW * sizeof(double); off += 64) __builtin_prefetch(p + off, 0, 3);
}

/// Pass A over the groups of row (k, j). uk, vk: u and rsd rows (k-/+1, j);
/// vc: rsd row (k, j); next_u, next_v: u and rsd rows of the next row, or
/// null on the plane's last row.
///  lower: rhs = v - omega*(Lz vk) - omega*(Ly vj), y = d^-1 rhs
///  upper: rhs = omega*(Uz vk) + omega*(Uy vj),     y = v - d^-1 rhs
template <bool kLower>
void pass_a(const SweepConsts& K, int nx, const Layout& l, const double* uk, const double* vk,
            const double* vj, const double* vc, const Buffers& b, const double* next_u,
            const double* next_v) {
  const double omega = K.omega;
  const double inv_d00 = K.diag.inv_d00;
  // The groups in the order pass B reads their y and M (i ascending in the
  // lower sweep, descending in the upper), so that a group's are as recent
  // when read in both sweeps: the upper sweep's pass A ran i ascending and
  // its jacobians took some 10% longer than the lower's on rows past the
  // first-level cache (class B, v3). Groups are independent: the same bits.
  for (int n = 0; n < l.groups; ++n) {
    const int g = kLower ? n : l.groups - 1 - n;
    const int first = l.first_point(g);
    if (next_u) {
      prefetch_group(next_u, first);
      prefetch_group(next_v, first);
    }
    if (n + 1 < l.groups) {  // this row's k neighbours, a group ahead
      const int ahead = l.first_point(kLower ? g + 1 : g - 1);
      prefetch_group(uk, ahead);
      prefetch_group(vk, ahead);
    }
    vd q[kM], r[kM], sz[kM], sy[kM], w[kM], e[kM][kM];

    load_group(uk, nx, first, kStateFill, q);
    load_group(vk, nx, first, kZeroFill, r);
    neighbour_apply<3>(K.z, point_state(q), r, sz);

    load_group(vj, nx, first, kZeroFill, r);
    neighbour_apply<2>(K.y, state_group(b.state_prev + std::size_t(g + 1) * kStateFields * kW), r, sy);

    load_group(vc, nx, first, kZeroFill, r);
    for (int m = 0; m < kM; ++m) {
      if constexpr (kLower)
        w[m] = (r[m] - omega * sz[m]) - omega * sy[m];
      else
        w[m] = omega * sz[m] + omega * sy[m];
    }

    const double* sc = b.state_cur + std::size_t(g + 1) * kStateFields * kW;
    const DiagonalFactors f = diagonal_factors(K.diag, state_group(sc));
    neighbour_block<1>(K.x, neighbour_state_group<kLower>(sc), e);

    double* o = b.fold + std::size_t(g) * kFoldFields * kW;
    diagonal_solve(f, inv_d00, w);
    for (int m = 0; m < kM; ++m) store(o + m * kW, kLower ? w[m] : r[m] - w[m]);
    fold_x_block(f, inv_d00, omega, e, o + kM * kW);
  }
}

/// Pass B: v(i) = y - M v(i -/+ 1) along the row, i ascending (lower) or
/// descending (upper); writes the rsd row and the swept-row buffer.
template <bool kLower>
void pass_b(int nx, int origin, const Buffers& b, double* __restrict row) {
  const int first = kLower ? 1 : nx - 2;
  const int step = kLower ? 1 : -1;
  const double* prev = row + kM * (first - step);
  double x0 = prev[0], x1 = prev[1], x2 = prev[2], x3 = prev[3], x4 = prev[4];
  const double* __restrict fold = b.fold;
  for (int c = 0, i = first; c < nx - 2; ++c, i += step) {
    const int g = (i - origin) / kW;
    const int t = (i - origin) % kW;
    const double* s = fold + std::size_t(g) * kFoldFields * kW + t;
    auto y = [&](int m) { return s[m * kW]; };
    auto M = [&](int q) { return s[(kM + q) * kW]; };
    // Summed so that the dependency chain through x is short.
    const double p0 = M(0) * x0, p1 = M(1) * x0, p2 = M(2) * x0, p3 = M(3) * x0, p4 = M(4) * x0;
    const double n0 = (y(0) - M(5) * x1) - p0;
    const double n1 = ((y(1) - M(6) * x1) - p1) - ((M(10) * x2 + M(13) * x3) + M(16) * x4);
    const double n2 = ((y(2) - M(7) * x1) - p2) - M(11) * x2;
    const double n3 = ((y(3) - M(8) * x1) - p3) - M(14) * x3;
    const double n4 = ((y(4) - M(9) * x1) - p4) - ((M(12) * x2 + M(15) * x3) + M(17) * x4);
    x0 = n0;
    x1 = n1;
    x2 = n2;
    x3 = n3;
    x4 = n4;
    double* o = row + kM * i;
    o[0] = x0;
    o[1] = x1;
    o[2] = x2;
    o[3] = x3;
    o[4] = x4;
  }
}

template <bool kLower>
void sweep_plane(const Coefficients& c, const GridSize& g, ColumnRange owned, int k, Field5& u, Field5& rsd,
                 double* blocks, std::size_t block_doubles, SweepTimes& times) {
  const SweepConsts K(c, kLower ? -1.0 : 1.0);
  const int nx = g.nx;
  const Layout layout(nx);
  if (block_doubles < layout.total + 8) throw std::logic_error("SweepWorkspace was not sized for this grid");
  Buffers b = carve(blocks, layout);
  fill_spare_states(layout, b.state_cur);
  fill_spare_states(layout, b.state_prev);
  constexpr int dj = kLower ? -1 : 1;  // towards the j neighbour already swept
  const int kn = k + dj;
  const int rows = owned.width();
  // rsd on the domain's boundary (plane kn = 0 or nz-1, column 0 or ny-1
  // next to the first row) is zero and never written: it is read from a row
  // of zeros instead, so that its pages are never touched. (Where the kernel
  // maps no shared zero page, a read of an untouched page allocates it: 2.7
  // MB a rank for class C.) The same values, so the same bits.
  const bool kn_on_boundary = kn == 0 || kn == g.nz - 1;
  const int first_neighbour = (kLower ? owned.begin : owned.end - 1) + dj;
  const bool j_on_boundary = first_neighbour == 0 || first_neighbour == g.ny - 1;
  if (kn_on_boundary || j_on_boundary) std::fill_n(b.zero_row, layout.zero_row, 0.0);
  // NPB's whole-field updates ride on the rows (lu/row_update.hpp): the
  // lower sweep scales row (k, j) just before pass A reads it; the upper sweep
  // updates u of row (k+1, j) once pass A has read it for the last time
  // (rsd there is final), and on plane 1, which no later plane reads, row
  // (1, j) once its own pass B is done (its state is in the row buffers by
  // then). A row's clock: update | pass A | update | pass B | update.
  const bool update_kn = !kLower && kn <= g.nz - 2;
  const bool update_k = !kLower && k == 1;
  const double update_factor = c.ssor_update_factor();
  // The plane's time split by phase as on every kSampleEvery-th row, the
  // last included (lu/sampled_split.hpp).
  enum Part { kJacobian, kSolve, kUpdate };
  constexpr int kSampleEvery = 8;
  SampledSplit<3> clock;
  for (int cnt = 0; cnt < rows; ++cnt) {
    const int j = kLower ? owned.begin + cnt : owned.end - 1 - cnt;
    clock.start_row((rows - 1 - cnt) % kSampleEvery == 0);
    if (cnt == 0) {
      load_state_row(u.row(k, j + dj), nx, layout, b.state_prev);
    }
    const bool has_next = cnt + 1 < rows;
    if constexpr (kLower) {
      scale_row_interior(rsd.row(k, j), nx, c.dt);
      clock.charge(kUpdate);
    }
    load_state_row(u.row(k, j), nx, layout, b.state_cur);
    const double* vj = cnt == 0 && j_on_boundary ? b.zero_row : rsd.row(k, j + dj);
    pass_a<kLower>(K, nx, layout, u.row(kn, j), kn_on_boundary ? b.zero_row : rsd.row(kn, j), vj,
                   rsd.row(k, j), b, has_next ? u.row(k, j - dj) : nullptr,
                   has_next ? rsd.row(k, j - dj) : nullptr);
    clock.charge(kJacobian);
    if (update_kn) {
      add_scaled_row_interior(u.row(kn, j), rsd.row(kn, j), nx, update_factor);
      clock.charge(kUpdate);
    }
    pass_b<kLower>(nx, layout.origin, b, rsd.row(k, j));
    clock.charge(kSolve);
    if (update_k) {
      add_scaled_row_interior(u.row(k, j), rsd.row(k, j), nx, update_factor);
      clock.charge(kUpdate);
    }
    std::swap(b.state_cur, b.state_prev);
  }
  const auto seconds = clock.seconds();
  times.jacobian += seconds[kJacobian];
  times.update += seconds[kUpdate];
  times.solve += seconds[kSolve];
}

}  // namespace

std::size_t sweep_workspace_doubles(const GridSize& g) { return Layout(g.nx).total + 8; }

void lower_sweep_plane(const Coefficients& c, const GridSize& g, ColumnRange owned, int k, Field5& u,
                       Field5& rsd, double* blocks, std::size_t block_doubles, SweepTimes& times) {
  sweep_plane<true>(c, g, owned, k, u, rsd, blocks, block_doubles, times);
}

void upper_sweep_plane(const Coefficients& c, const GridSize& g, ColumnRange owned, int k, Field5& u,
                       Field5& rsd, double* blocks, std::size_t block_doubles, SweepTimes& times) {
  sweep_plane<false>(c, g, owned, k, u, rsd, blocks, block_doubles, times);
}

}  // namespace npblu::NPBLU_KERNEL_NS
