#pragma once
// What a model of the ranks' iterations in time gives and is given: the
// costs, one rank's share of an iteration, and the interface behind which
// StripeModel (every rank on a core of its own) and TimeSharedModel (ranks
// that may share cores) drive a modelled run (sim/simulation.cpp).
#include <span>
#include <stdexcept>
#include <vector>

#include "lu/grid.hpp"

namespace npblu::sim {

/// Seconds per interior grid point at full speed, per phase, and the network.
struct CostModel {
  double lower = 16e-9;    // jacld + blts, per point of a plane row
  double upper = 16e-9;    // jacu + buts
  double rhs = 35e-9;      // the residual
  double update = 3e-9;    // dt scaling and the update of u
  double latency = 3e-6;   // seconds per message
  double bandwidth = 4e9;  // bytes per second
  int lanes = 4;           // the sweep kernels' vector lanes (lu's level: 2, 4, 8): how wide stripes pipeline
};

/// What every model charges for one piece of an iteration, from the grid and
/// the costs: one home, so that the models differ only in how ranks share
/// cores. Throws std::invalid_argument on a latency < 0 or a bandwidth <= 0.
class ScheduleCosts {
 public:
  ScheduleCosts(GridSize grid, const CostModel& cost)
      : planes(grid.nz - 2),
        row_points(grid.nx - 2),
        column_points(row_points * planes),
        // The update (lu's update timer: the residual's dt scaling and u's
        // update) rides on the sweeps' rows, half in each, so it is
        // pipelined with them.
        lower_point(cost.lower + 0.5 * cost.update),
        upper_point(cost.upper + 0.5 * cost.update),
        rhs_point(cost.rhs),
        row_message(message(cost, 5.0 * grid.nx * sizeof(double))),  // the pipeline's message
        halo_message(message(cost, 2.0 * 5.0 * grid.nx * grid.nz * sizeof(double))),  // two columns of u
        lanes(cost.lanes) {
    if (!(cost.bandwidth > 0.0) || !(cost.latency >= 0.0))
      throw std::invalid_argument("latency must be >= 0 and bandwidth > 0");
    if (cost.lanes < 1) throw std::invalid_argument("the sweeps' lanes must be >= 1");
  }
  /// Seconds one plane of a stripe takes in the lower / upper sweep, and rhs of the whole stripe.
  [[nodiscard]] double lower_plane(int width, double slowdown) const {
    return lower_point * row_points * width * slowdown;
  }
  [[nodiscard]] double upper_plane(int width, double slowdown) const {
    return upper_point * row_points * width * slowdown;
  }
  [[nodiscard]] double rhs_stripe(int width, double slowdown) const {
    return rhs_point * column_points * width * slowdown;
  }

  const int planes;            // interior planes k
  const double row_points;     // one (k, j) row of interior i
  const double column_points;  // one column j
  const double lower_point, upper_point, rhs_point;
  const double row_message;  // seconds: latency + bytes / bandwidth
  const double halo_message;
  const int lanes;  // the sweeps' schedule (sim/sweep_schedule.hpp)

 private:
  static double message(const CostModel& cost, double bytes) { return cost.latency + bytes / cost.bandwidth; }
};

/// One rank's share of one iteration.
struct RankIteration {
  double compute = 0.0;    // seconds computing (wall clock, as lu's timers)
  double wait = 0.0;       // seconds waiting for messages (pipeline and halo)
  double on_cpu = 0.0;     // seconds on its core (MPI polls on it while waiting)
  double run_delay = 0.0;  // seconds runnable but not on its core (it shares the core)
};

/// What every rank does in one iteration: its stripe's width and the factor
/// on its compute (1 / speed, times any noise).
struct IterationLoad {
  std::span<const int> widths;
  std::span<const double> slowdown;
};

/// A model of the ranks' iterations in time (StripeModel: every rank on a
/// core of its own; TimeSharedModel: ranks that may share cores).
class IterationModel {
 public:
  virtual ~IterationModel() = default;
  /// Advances every rank through one iteration, `now`. `next` is the
  /// iteration that follows with no collective in between (null: a
  /// collective or the end of the run follows): ranks that finish early
  /// start it, as lu's ranks do.
  virtual void iterate(const IterationLoad& now, const IterationLoad* next,
                       std::vector<RankIteration>& out) = 0;
  /// Every rank waits for the last one (a collective), plus `seconds`; the
  /// waiting is added to `out` (the iteration just done).
  virtual void synchronise(double seconds, std::vector<RankIteration>& out) = 0;
  /// The clock of the rank that is furthest ahead: the run's elapsed time.
  [[nodiscard]] virtual double elapsed() const = 0;
};

}  // namespace npblu::sim
