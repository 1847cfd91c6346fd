#pragma once
// What a model of the ranks' iterations in time gives and is given: the
// costs, one rank's share of an iteration, and the interface behind which
// StripeModel (every rank on a core of its own) and TimeSharedModel (ranks
// that may share cores) drive a modelled run (sim/simulation.cpp).
#include <span>
#include <vector>

namespace npblu::sim {

/// Seconds per interior grid point at full speed, per phase, and the network.
struct CostModel {
  double lower = 16e-9;    // jacld + blts, per point of a plane row
  double upper = 16e-9;    // jacu + buts
  double rhs = 35e-9;      // the residual
  double update = 3e-9;    // dt scaling and the update of u
  double latency = 3e-6;   // seconds per message
  double bandwidth = 4e9;  // bytes per second
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
