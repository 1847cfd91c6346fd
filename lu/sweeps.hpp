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

/// Which kernel sweeps a stripe (lu/sweeps.cpp): by hyperplanes of `lanes`
/// planes, or plane by plane. Hyperplanes need a stripe of kMinHyperplaneRows
/// rows or more to keep their lanes busy (lu/sweeps.cpp says why), and they
/// cost the pipeline: a neighbour waits for a block of `lanes` planes where
/// plane by plane it waits for one, once per rank down the pipeline of
/// `ranks` stripes. So they are chosen only where their speed, a sweep
/// kHyperplaneGain times as fast, pays for that wait:
///   (planes + (ranks - 1) lanes) / gain < planes + (ranks - 1).
/// (Xeon: the sweeps of wide stripes 1.1-1.25x as fast by hyperplanes, class
/// A on 2 ranks 1.07 at 4 lanes and 1.08 at 8 in whole runs;
/// docs/performance.md.) lu-sim models the same choice (sim/sweep_schedule.hpp).
inline constexpr int kMinHyperplaneRows = 24;
inline constexpr double kHyperplaneGain = 1.15;
[[nodiscard]] constexpr bool sweeps_by_hyperplanes(int width, int planes, int ranks, int lanes) {
  return width >= kMinHyperplaneRows &&
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
