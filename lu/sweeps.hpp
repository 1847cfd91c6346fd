#pragma once
// The two triangular sweeps of one SSOR iteration (NPB LU's jacld + blts and
// jacu + buts) over a stripe's columns, by hyperplanes of kW planes
// (lu/sweeps.cpp). The kernels only compute: they tell the caller, through
// SweepNeighbours, when a plane's row from the neighbouring stripe is first
// needed and when the stripe's own rows of a plane are final, and the solver
// moves those rows between ranks.
#include <vector>

#include "lu/coefficients.hpp"
#include "lu/field.hpp"

namespace npblu {

/// The order of a sweep by hyperplanes of `lanes` planes
/// (lu/sweep_hyperplanes.cpp; lu-sim follows it, sim/sweep_schedule.cpp).
/// Planes are numbered in the sweep's order, q = 0 .. planes - 1. Lane t
/// takes planes t, t + lanes, t + 2 lanes, ..., each over the stripe's width
/// rows and then one step's rest, a round of width + 1 steps: plane q starts
/// at step start(q), a step after plane q - 1 (so a row behind it, where its
/// k neighbour is) or, for lane 0, after its previous plane's rest. The rest
/// is what lets a lane start a plane without a copy of its last row: the
/// next lane reads that row (its k neighbour) up to the step before it rests
/// too. So lanes idle one step a plane, besides the sweep's first and last
/// lanes - 1 steps. Lane 0's k neighbour, plane q - 1, is then
/// width - lanes + 2 rows ahead: the order needs width >= lanes - 1.
struct HyperplaneOrder {
  int planes;
  int width;
  int lanes;

  [[nodiscard]] constexpr int round() const { return width + 1; }
  [[nodiscard]] constexpr int start(int q) const { return (q / lanes) * round() + q % lanes; }
  [[nodiscard]] constexpr int steps() const { return planes > 0 ? start(planes - 1) + width : 0; }
  /// The plane lane t is on at step h; -1 before its first, at its rests and
  /// after its last.
  [[nodiscard]] constexpr int plane_at(int t, int h) const {
    if (h < t || (h - t) % round() == width) return -1;
    const int q = t + lanes * ((h - t) / round());
    return q < planes ? q : -1;
  }
  /// The row of its plane lane t does at step h (0: the first in the sweep's
  /// direction), where plane_at(t, h) >= 0.
  [[nodiscard]] constexpr int row_at(int t, int h) const { return (h - t) % round(); }
  /// The plane whose first row is done at step h (-1: none).
  [[nodiscard]] constexpr int starting_at(int h) const {
    const int t = h % round();
    return t < lanes ? plane_at(t, h) : -1;
  }
  /// The plane whose last row is done at step h (-1: none).
  [[nodiscard]] constexpr int finishing_at(int h) const {
    const int t = (h + 2) % round();
    return t < lanes && h >= t + width - 1 ? plane_at(t, h) : -1;
  }
};

/// Which kernel sweeps a stripe (lu/sweeps.cpp): by hyperplanes of `lanes`
/// planes, or plane by plane (always so with one lane). Hyperplanes need a
/// stripe of kMinHyperplaneRows rows and twice their lanes or more (a lane
/// rests a step a plane: HyperplaneOrder), and they cost the pipeline: a
/// neighbour waits for `lanes` planes' rows where plane by plane it waits for
/// one, once per rank down the pipeline of `ranks` stripes. So they are chosen only where their
/// speed, a sweep kHyperplaneGain times as fast, pays for that wait:
///   (planes + (ranks - 1) lanes) / gain < planes + (ranks - 1).
/// (Xeon, one rank, the sweeps' jacobians and solves before / after: 16 rows
/// 1.18 at 4 lanes and 1.23 at 8, 8 rows 1.14 at 4 lanes, 1.08 at 2, 0.98
/// at 8; class W on 2 ranks at 8 lanes, where the rule says plane by plane,
/// the same speed by hyperplanes; docs/performance.md.)
/// lu-sim models the same choice (sim/sweep_schedule.hpp).
inline constexpr int kMinHyperplaneRows = 8;
inline constexpr double kHyperplaneGain = 1.15;
[[nodiscard]] constexpr bool sweeps_by_hyperplanes(int width, int planes, int ranks, int lanes) {
  return lanes > 1 && width >= kMinHyperplaneRows && width >= 2 * lanes &&
         planes + double(ranks - 1) * lanes < kHyperplaneGain * (planes + double(ranks - 1));
}
/// The planes of a hyperplane block at the level the kernels run (its vector
/// lanes: lu/isa.hpp).
[[nodiscard]] int sweep_lanes();

/// Seconds spent forming the block Jacobians, in the block triangular solves
/// and in the SSOR updates the sweeps apply row by row; accumulated by the
/// sweep kernels (the time spent in SweepNeighbours excluded).
struct SweepTimes {
  double jacobian = 0.0;
  double solve = 0.0;
  double update = 0.0;
};

/// Scratch of the sweeps (the states, swept values and blocks of kW rows),
/// sized once.
class SweepWorkspace {
 public:
  SweepWorkspace() = default;
  explicit SweepWorkspace(const GridSize& g);
  /// The doubles one holds for grid g (the chosen level's vector width).
  [[nodiscard]] static std::size_t doubles(const GridSize& g);

  std::vector<double> blocks;  // layout private to sweeps.cpp
};

/// The stripe's neighbour in a sweep's direction, as the kernels see it.
/// Calls come in the sweep's plane order (k ascending in the lower sweep,
/// descending in the upper), each plane once.
class SweepNeighbours {
 public:
  /// Before rsd row (k, owned.begin - 1) (lower) or (k, owned.end) (upper)
  /// is first read: the neighbour stripe's result, or the zero boundary.
  virtual void plane_needed(int k) = 0;
  /// After the stripe's rows of plane k are final (rsd row (k, owned.end - 1)
  /// in the lower sweep, (k, owned.begin) in the upper, may be sent on).
  virtual void plane_done(int k) = 0;
  /// The stripes in the pipeline the sweep is part of (1: none waits for
  /// another), for the choice of kernel (sweeps_by_hyperplanes).
  [[nodiscard]] virtual int pipeline_ranks() const = 0;

 protected:
  ~SweepNeighbours() = default;
};

/// A stripe with no neighbour to wait for or to tell (one rank, or a caller
/// that has copied every halo row beforehand).
/// (Defined out of line, outside the per-level kernels, so that no level's
/// objects hold a copy: lu/kernel_levels.hpp.)
class NoSweepNeighbours final : public SweepNeighbours {
 public:
  void plane_needed(int k) override;
  void plane_done(int k) override;
  [[nodiscard]] int pipeline_ranks() const override { return 1; }
};

/// Lower sweep of planes k = 1 .. nz-2 over the owned columns (a point after
/// its k-1, j-1 and i-1 neighbours): rsd <- dt * rsd (NPB's rsd *= dt, point
/// by point as it is read), then rsd <- solution of the lower block-triangular
/// system, using rsd plane 0 (zero) and column owned.begin - 1 (the previous
/// stripe's result, or the zero boundary). Reads u on owned columns widened by
/// one below.
void lower_sweep(const Coefficients& c, const GridSize& g, ColumnRange owned, Field5& u, Field5& rsd,
                 SweepWorkspace& ws, SweepTimes& times, SweepNeighbours& neighbours);

/// Upper sweep of planes k = nz-2 .. 1 (a point after its k+1, j+1 and i+1
/// neighbours), using column owned.end of rsd (the next stripe's result, or
/// the zero boundary). Reads u on owned columns widened by one above. Applies
/// NPB's final update u += rsd * c.ssor_update_factor() to each row once the
/// sweep no longer reads it, so that afterwards u is updated everywhere.
void upper_sweep(const Coefficients& c, const GridSize& g, ColumnRange owned, Field5& u, Field5& rsd,
                 SweepWorkspace& ws, SweepTimes& times, SweepNeighbours& neighbours);

}  // namespace npblu
