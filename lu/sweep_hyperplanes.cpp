// The SSOR sweeps of a stripe by hyperplanes.
//
// The kW lanes of a vector sweep kW planes at once (HyperplaneOrder,
// lu/sweeps.hpp): lane t takes planes t, t + kW, ... of the sweep's order,
// one row behind the lane of the plane before (lane t - 1, or lane kW - 1
// for lane 0). At step h lane t does row j0 + n of its plane (the stripe's
// rows j0..j1-1; in the upper sweep j1 - 1 - n), n = (h - t) mod (width + 1),
// so that a row's neighbours already swept are in the lanes' results of the
// step before: its j neighbour in its own lane, its k neighbour in lane
// t - 1 (lane 0's, the plane before, from the fields). A row of kW planes is
// then swept with every point's work in vectors, the recurrence along i
// included: pass A forms the blocks and eliminates with the diagonal, pass B
// runs the recurrence (lu/sweep_formulas.hpp), point by point, in the lanes.
// A lane that has done its plane's last row rests one step (n = width) and
// then starts its next plane, its j neighbour the row before the stripe in
// place of the row it did last: lane t + 1, which reads that row as its k
// neighbour, has done its own last row by then. So lanes idle a step a
// plane besides the sweep's first and last kW - 1 steps (blocks of kW planes
// idled each block's first and last kW - 1 steps: 18% of class A's steps on
// 2 ranks at 8 lanes, now 3%).
//
// Every point goes through the same operations in whichever lane or step it
// falls (lanes are independent, and a row's neighbours are the same
// values whether they come from a lane or from the fields), and through the
// same ones as in lu/sweep_planes.cpp, so results do not depend on the
// partition or the kernel.
//
// Timing: pass A (with the state loads) counts as jacobian time, pass B as
// solve time. A step interleaves the two point by point; every 8th step runs
// them one after the other instead (the same arithmetic, so the same bits)
// and is timed part by part, and the sweep's seconds split as on those steps
// (lu/sampled_split.hpp).
#include <algorithm>
#include <cstddef>
#include <new>
#include <stdexcept>
#include <utility>

#include "lu/row_update.hpp"
#include "lu/simd_lanes.hpp"
#include "lu/simd_points.hpp"
#include "lu/sweep_formulas.hpp"
#include "lu/sweep_kernels.hpp"

namespace npblu::NPBLU_KERNEL_NS {

namespace {

using namespace sweep_formulas;

/// (a[kW-1], b[0], ..., b[kW-2]): lane t from lane t - 1 of b, lane 0 from a.
struct ShiftUpMask {
  static constexpr int lane(int t) { return t + kW - 1; }
};
inline vd shift_up(vd a, vd b) { return simd::shuffle<ShiftUpMask>(a, b); }

// ---------------------------------------------------------------------------
// Workspace. Per point i of a step's kW rows: the states and swept values of
// the rows the lanes did in the step before and of this step's, and y and M
// (pass A's output; only the steps timed part by part keep a row's worth).
// Lane 0's k neighbour states go field by field, a row of zeros stands for
// rsd on the domain's boundary.

/// The swept values (rsd after the sweep) at a point of the kW rows.
struct Swept {
  vd v[kM];
};

struct Scratch {
  PointState* state_prev;  // the rows of the step before
  PointState* state_cur;   // this step's rows
  Swept* swept_prev;
  Swept* swept_cur;
  Fold* fold;
  double* low;       // kStateFields x low_stride: lane 0's k neighbour states
  double* zero_row;  // kM nx zeros
  int low_stride;
};

std::size_t scratch_doubles(int nx) {
  const std::size_t bytes = std::size_t(nx) * (2 * sizeof(PointState) + 2 * sizeof(Swept) + sizeof(Fold));
  return bytes / sizeof(double) + std::size_t(kStateFields) * (nx + kW) + std::size_t(kM) * nx +
         64 / sizeof(double);
}

/// n objects of type T, value-initialised (zeros: the lanes no row has filled
/// yet compute on finite values), at p; p moves past them.
template <class T>
T* take(double*& p, int n) {
  T* first = reinterpret_cast<T*>(p);
  for (int i = 0; i < n; ++i) new (first + i) T();
  p += std::size_t(n) * sizeof(T) / sizeof(double);
  return first;
}

Scratch carve(double* blocks, int nx) {
  double* p = aligned_64(blocks);
  Scratch s{};
  s.state_prev = take<PointState>(p, nx);
  s.state_cur = take<PointState>(p, nx);
  s.swept_prev = take<Swept>(p, nx);
  s.swept_cur = take<Swept>(p, nx);
  s.fold = take<Fold>(p, nx);
  s.low_stride = nx + kW;
  s.low = p;
  s.zero_row = s.low + std::size_t(kStateFields) * s.low_stride;
  std::fill_n(s.zero_row, std::size_t(kM) * nx, 0.0);
  return s;
}

// ---------------------------------------------------------------------------
// One step of the sweep.

struct SweepContext {
  const SweepConsts& K;
  const Coefficients& c;
  const GridSize& g;
  ColumnRange owned;
  Field5& u;
  Field5& rsd;
  Scratch& s;
  HyperplaneOrder lanes;  // which lane does which row at which step (lu/sweeps.hpp)
};

/// Plane q of the sweep's order as k.
template <bool kLower>
int plane_k(const SweepContext& x, int q) {
  return kLower ? 1 + q : x.lanes.planes - q;
}

/// The rows of step h (HyperplaneOrder): lane t on row j0 + n or j1 - 1 - n
/// of its plane, n = its row_at. Lanes with no plane are idle: they
/// point at a row of the stripe, compute on it and store nothing.
struct StepRows {
  bool active[kW];
  bool all_active;
  int plane[kW];
  int row[kW];
  const double* u[kW];
  double* rsd[kW];
};

template <bool kLower>
StepRows step_rows(const SweepContext& x, int h) {
  StepRows r{};
  r.all_active = true;
  const ColumnRange o = x.owned;
  for (int t = 0; t < kW; ++t) {
    const int q = x.lanes.plane_at(t, h);
    const int n = q >= 0 ? x.lanes.row_at(t, h) : 0;
    r.active[t] = q >= 0;
    r.all_active = r.all_active && r.active[t];
    r.plane[t] = plane_k<kLower>(x, std::max(q, 0));
    r.row[t] = kLower ? o.begin + n : o.end - 1 - n;
    r.u[t] = x.u.row(r.plane[t], r.row[t]);
    r.rsd[t] = x.rsd.row(r.plane[t], r.row[t]);
  }
  return r;
}

/// Lane t starts its plane: its "step before" is the row next to the
/// stripe's first (the neighbour stripe's, or the domain's boundary, where
/// rsd is zero and read from the zero row so that its pages stay untouched).
template <bool kLower>
void start_lane(const SweepContext& x, int k, int t) {
  const int j = kLower ? x.owned.begin - 1 : x.owned.end;
  const double* ub = x.u.row(k, j);
  const double* rb = j == 0 || j == x.g.ny - 1 ? x.s.zero_row : x.rsd.row(k, j);
  for (int i = 0; i < x.g.nx; ++i) {
    vd q[kM];
    for (int m = 0; m < kM; ++m) q[m] = vd{} + ub[kM * i + m];  // the same arithmetic in every lane
    const PointState p = point_state(q);
    PointState& d = x.s.state_prev[i];
    d.t1[t] = p.t1[t];
    for (int m = 0; m < 3; ++m) d.vel[m][t] = p.vel[m][t];
    d.e[t] = p.e[t];
    d.qv[t] = p.qv[t];
    for (int m = 0; m < kM; ++m) x.s.swept_prev[i].v[m][t] = rb[kM * i + m];
  }
}

/// The states of this step's rows at every point, and those of lane 0's k
/// neighbour row (its plane -/+ 1), field by field.
template <bool kLower>
void load_states(const SweepContext& x, const StepRows& r) {
  const int nx = x.g.nx;
  for (int i = 0; i < nx; ++i) {
    vd q[kM];
    simd::load_lanes(r.u, i, q);
    x.s.state_cur[i] = point_state(q);
  }
  if (!r.active[0]) return;
  const double* uk = x.u.row(kLower ? r.plane[0] - 1 : r.plane[0] + 1, r.row[0]);
  for (int first = 0; first < nx; first += kW) {
    vd q[kM];
    load_group(uk, nx, first, kStateFill, q);
    const PointState p = point_state(q);
    const vd fields[kStateFields] = {p.t1, p.vel[0], p.vel[1], p.vel[2], p.e, p.qv};
    for (int f = 0; f < kStateFields; ++f)
      simd::store(x.s.low + std::size_t(f) * x.s.low_stride + first, fields[f]);
  }
}

/// Pass A at point i of the step's rows: y and M into out. vk0: rsd of lane
/// 0's k neighbour row; rows: rsd of the step's rows.
template <bool kLower>
[[gnu::always_inline]] inline void pass_a(const SweepContext& x, const double* vk0,
                                          const double* const rows[kW], int i, Fold& out) {
  const Scratch& s = x.s;
  const PointState& prev = s.state_prev[i];
  auto low = [&](int f) { return splat(s.low[std::size_t(f) * s.low_stride + i]); };
  // lane t's k neighbour is lane t - 1's row of the step before
  const PointState pk{
      shift_up(low(0), prev.t1),
      {shift_up(low(1), prev.vel[0]), shift_up(low(2), prev.vel[1]), shift_up(low(3), prev.vel[2])},
      shift_up(low(4), prev.e),
      shift_up(low(5), prev.qv)};
  vd vk[kM], r[kM], sz[kM], sy[kM], w[kM], e[kM][kM];
  for (int m = 0; m < kM; ++m) vk[m] = shift_up(splat(vk0[kM * i + m]), s.swept_prev[i].v[m]);
  neighbour_apply<3>(x.K.z, pk, vk, sz);
  neighbour_apply<2>(x.K.y, prev, s.swept_prev[i].v, sy);
  simd::load_lanes(rows, i, r);
  point_rhs<kLower>(x.K, r, sz, sy, w);
  const DiagonalFactors f = diagonal_factors(x.K.diag, s.state_cur[i]);
  neighbour_block<1>(x.K.x, s.state_cur[kLower ? i - 1 : i + 1], e);
  diagonal_solve(f, x.K.diag.inv_d00, w);
  point_fold<kLower>(x.K, f, r, w, e, out);
}

/// Pass B at a point: x <- y - M x.
inline void pass_b(const Fold& f, vd x[kM]) {
  pass_b_point<vd>([&](int m) { return f.y[m]; }, [&](int q) { return f.m[q]; }, x);
}

/// Point i's swept values into the lanes' buffer and the active lanes' rows.
inline void store_swept(const SweepContext& x, const StepRows& r, int i, const vd v[kM]) {
  for (int m = 0; m < kM; ++m) x.s.swept_cur[i].v[m] = v[m];
  if (r.all_active)
    simd::store_lanes(r.rsd, i, v);
  else
    simd::store_lanes_masked(r.rsd, i, v, r.active);
}

/// Passes A and B along the step's rows (i ascending in the lower sweep,
/// descending in the upper): point by point, or on a timed step pass A on
/// every point and then pass B.
template <bool kLower>
void sweep_rows(const SweepContext& x, const StepRows& r, bool timed, SweepClock& clock) {
  const int nx = x.g.nx;
  const int kn = kLower ? r.plane[0] - 1 : r.plane[0] + 1;
  const double* vk0 = kn == 0 || kn == x.g.nz - 1 ? x.s.zero_row : x.rsd.row(kn, r.row[0]);
  auto point = [&](int n) { return kLower ? n : nx - 1 - n; };
  vd v[kM];
  simd::load_lanes(r.rsd, point(0), v);  // the boundary point before the first
  if (!timed) {
    for (int n = 1; n < nx - 1; ++n) {
      pass_a<kLower>(x, vk0, r.rsd, point(n), x.s.fold[0]);
      pass_b(x.s.fold[0], v);
      store_swept(x, r, point(n), v);
    }
    return;
  }
  for (int n = 1; n < nx - 1; ++n) pass_a<kLower>(x, vk0, r.rsd, point(n), x.s.fold[n]);
  clock.charge(kJacobian);
  for (int n = 1; n < nx - 1; ++n) {
    pass_b(x.s.fold[n], v);
    store_swept(x, r, point(n), v);
  }
  clock.charge(kSolve);
}

/// NPB's u += factor * rsd (upper sweep), on the rows the sweep no longer
/// reads: the k neighbours this step's rows have read (plane k + 1, whose
/// rows later steps take from the lanes), and plane 1's own rows.
void update_rows(const SweepContext& x, const StepRows& r) {
  const double factor = x.c.ssor_update_factor();
  for (int t = 0; t < kW; ++t) {
    if (!r.active[t]) continue;
    const int k = r.plane[t], j = r.row[t];
    if (k + 1 <= x.g.nz - 2) add_scaled_row_interior(x.u.row(k + 1, j), x.rsd.row(k + 1, j), x.g.nx, factor);
    if (k == 1) add_scaled_row_interior(x.u.row(1, j), x.rsd.row(1, j), x.g.nx, factor);
  }
}

template <bool kLower>
void sweep_step(const SweepContext& x, int h, bool timed, SweepClock& clock) {
  clock.start_row(timed);
  const StepRows r = step_rows<kLower>(x, h);
  if (const int q = x.lanes.starting_at(h); q >= 0) start_lane<kLower>(x, plane_k<kLower>(x, q), q % kW);
  load_states<kLower>(x, r);
  sweep_rows<kLower>(x, r, timed, clock);
  if constexpr (!kLower) {
    update_rows(x, r);
    clock.charge(kUpdate);
  }
  std::swap(x.s.state_prev, x.s.state_cur);
  std::swap(x.s.swept_prev, x.s.swept_cur);
}

template <bool kLower>
void sweep(const SweepCall& call) {
  const Coefficients& c = call.c;
  const GridSize& g = call.g;
  const ColumnRange owned = call.owned;
  SweepNeighbours& neighbours = call.neighbours;
  if (call.block_doubles < scratch_doubles(g.nx))
    throw std::logic_error("SweepWorkspace was not sized for this grid");
  Scratch s = carve(call.blocks, g.nx);
  const SweepConsts K(c, kLower ? -1.0 : 1.0);
  const HyperplaneOrder lanes{g.nz - 2, owned.width(), kW};
  if (lanes.planes > 0 && lanes.width < kW - 1)
    throw std::logic_error("a sweep by hyperplanes needs a stripe of at least its lanes less one rows");
  const SweepContext x{K, c, g, owned, call.u, call.rsd, s, lanes};
  constexpr int kTimedEvery = 8;
  SweepClock clock;
  for (int h = 0; h < lanes.steps(); ++h) {
    if (const int q = lanes.starting_at(h); q >= 0)
      untimed(clock, [&] { neighbours.plane_needed(plane_k<kLower>(x, q)); });
    sweep_step<kLower>(x, h, h % kTimedEvery == 0, clock);
    if (const int q = lanes.finishing_at(h); q >= 0)
      untimed(clock, [&] { neighbours.plane_done(plane_k<kLower>(x, q)); });
  }
  record_seconds(clock, call.times);
}

}  // namespace

std::size_t sweep_by_hyperplanes_doubles(const GridSize& g) { return scratch_doubles(g.nx); }

void lower_sweep_by_hyperplanes(const SweepCall& call) { sweep<true>(call); }

void upper_sweep_by_hyperplanes(const SweepCall& call) { sweep<false>(call); }

}  // namespace npblu::NPBLU_KERNEL_NS
