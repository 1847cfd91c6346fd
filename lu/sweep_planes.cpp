// The SSOR sweeps of a stripe plane by plane (NPB's order: k, then j, then
// i), each (k, j) row in two passes.
//  A. Vectorised across i, kW points at a time: everything that does not
//     depend on the recurrence along i (lu/sweep_formulas.hpp).
//  B. Scalar: the recurrence v(i) = y - M v(i -/+ 1) along the row.
// The kernel for stripes too narrow for the hyperplanes (lu/sweeps.cpp): its
// lanes never idle, whatever the stripe's width. Every point goes through
// the same operations as in the hyperplanes (the partial last group of a row
// reads padding), so the two compute the same bits.
//
// Timing: pass A (with the state loads) counts as jacobian time, pass B as
// solve time: the sweep's seconds split as on every 8th row
// (lu/sampled_split.hpp).
#include <algorithm>
#include <cstddef>
#include <new>
#include <stdexcept>
#include <utility>

#include "lu/row_update.hpp"
#include "lu/simd_points.hpp"
#include "lu/sweep_formulas.hpp"
#include "lu/sweep_kernels.hpp"

namespace npblu::NPBLU_KERNEL_NS {

namespace {

using namespace sweep_formulas;
using simd::load;
using simd::load_points;
using simd::store;

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
// Workspace: row buffers blocked by kW points (group g holds the fields of
// points [origin + g*kW, origin + (g+1)*kW), one kW-vector per field). The
// state buffers have a spare group on each side (the i neighbours of the end
// groups).

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
        fold(std::size_t(groups) * sizeof(Fold) / sizeof(double)),
        zero_row(std::size_t(kM) * nx),
        total(2 * state + fold + zero_row) {}
  /// The first point of group g.
  [[nodiscard]] int first_point(int g) const { return origin + g * kW; }
};

struct Buffers {
  double* state_cur;   // this row's state (group g at g+1)
  double* state_prev;  // the j neighbour row's state
  Fold* fold;          // y and M of this row
  double* zero_row;    // a row of zeros: rsd on the domain's boundary (sweep_plane)
};

Buffers carve(double* blocks, const Layout& l) {
  double* p = aligned_64(blocks);
  Buffers b{};
  b.state_cur = p;
  b.state_prev = b.state_cur + l.state;
  b.fold = reinterpret_cast<Fold*>(b.state_prev + l.state);
  for (int g = 0; g < l.groups; ++g) new (b.fold + g) Fold();
  b.zero_row = b.state_prev + l.state + l.fold;
  return b;
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
/// vj: rsd row (k, j-/+1); vc: rsd row (k, j) (the lower sweep's dt is
/// applied as it is read: point_rhs); next_u, next_v: u and rsd rows of the
/// next row, or null on the plane's last row.
template <bool kLower>
void pass_a(const SweepConsts& K, int nx, const Layout& l, const double* uk, const double* vk,
            const double* vj, const double* vc, const Buffers& b, const double* next_u,
            const double* next_v) {
  // The groups in the order pass B reads their y and M (i ascending in the
  // lower sweep, descending in the upper), so that a group's are as recent
  // when read in both sweeps. Groups are independent: the same bits.
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
    point_rhs<kLower>(K, r, sz, sy, w);
    const double* sc = b.state_cur + std::size_t(g + 1) * kStateFields * kW;
    const DiagonalFactors f = diagonal_factors(K.diag, state_group(sc));
    neighbour_block<1>(K.x, neighbour_state_group<kLower>(sc), e);
    diagonal_solve(f, K.diag.inv_d00, w);
    point_fold<kLower>(K, f, r, w, e, b.fold[g]);
  }
}

/// Pass B: v(i) = y - M v(i -/+ 1) along the row, i ascending (lower) or
/// descending (upper); writes the rsd row.
template <bool kLower>
void pass_b(int nx, int origin, const Buffers& b, double* __restrict row) {
  const int first = kLower ? 1 : nx - 2;
  const int step = kLower ? 1 : -1;
  const double* prev = row + kM * (first - step);
  double x[kM] = {prev[0], prev[1], prev[2], prev[3], prev[4]};
  const Fold* __restrict fold = b.fold;
  for (int c = 0, i = first; c < nx - 2; ++c, i += step) {
    // lane t of the group's vectors, read as doubles (a vector's lane picked
    // by a run-time index would be extracted from a register instead)
    const double* s = reinterpret_cast<const double*>(&fold[(i - origin) / kW]) + (i - origin) % kW;
    const double* sm = s + kM * kW;
    pass_b_point<double>([&](int m) { return s[m * kW]; }, [&](int q) { return sm[q * kW]; }, x);
    double* o = row + kM * i;
    for (int m = 0; m < kM; ++m) o[m] = x[m];
  }
}

/// One plane of the stripe: its rows j ascending (lower) or descending.
template <bool kLower>
void sweep_plane(const SweepConsts& K, const SweepCall& call, int k, const Layout& layout, Buffers& b,
                 SweepClock& clock) {
  const GridSize& g = call.g;
  Field5 &u = call.u, &rsd = call.rsd;
  const ColumnRange owned = call.owned;
  const int nx = g.nx;
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
  // NPB's whole-field updates ride on the rows: the lower sweep's rsd *= dt
  // on pass A's loads (point_rhs); the upper sweep's u += factor * rsd
  // (lu/row_update.hpp) on u of row (k+1, j) once pass A has read it for the
  // last time (rsd there is final), and on plane 1, which no later plane
  // reads, on row (1, j) once its own pass B is done. A row's clock: pass A |
  // update | pass B | update.
  const bool update_kn = !kLower && kn <= g.nz - 2;
  const bool update_k = !kLower && k == 1;
  const double update_factor = call.c.ssor_update_factor();
  constexpr int kSampleEvery = 8;
  for (int cnt = 0; cnt < rows; ++cnt) {
    const int j = kLower ? owned.begin + cnt : owned.end - 1 - cnt;
    clock.start_row((rows - 1 - cnt) % kSampleEvery == 0);
    if (cnt == 0) load_state_row(u.row(k, j + dj), nx, layout, b.state_prev);
    const bool has_next = cnt + 1 < rows;
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
}

template <bool kLower>
void sweep(const SweepCall& call) {
  const Layout layout(call.g.nx);
  if (call.block_doubles < layout.total + 8)
    throw std::logic_error("SweepWorkspace was not sized for this grid");
  Buffers b = carve(call.blocks, layout);
  std::fill_n(b.zero_row, layout.zero_row, 0.0);
  const SweepConsts K(call.c, kLower ? -1.0 : 1.0);
  SweepClock clock;
  const int planes = call.g.nz - 2;
  for (int step = 0; step < planes; ++step) {
    const int k = kLower ? 1 + step : planes - step;
    untimed(clock, [&] { call.neighbours.plane_needed(k); });
    sweep_plane<kLower>(K, call, k, layout, b, clock);
    untimed(clock, [&] { call.neighbours.plane_done(k); });
  }
  record_seconds(clock, call.times);
}

}  // namespace

std::size_t sweep_by_planes_doubles(const GridSize& g) { return Layout(g.nx).total + 8; }

void lower_sweep_by_planes(const SweepCall& call) { sweep<true>(call); }

void upper_sweep_by_planes(const SweepCall& call) { sweep<false>(call); }

}  // namespace npblu::NPBLU_KERNEL_NS
