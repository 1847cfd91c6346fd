#pragma once
// StripeModel: event times of one SSOR iteration of LU on columnwise
// stripes, per rank, without computing anything. The same schedule as
// LuSolver::iterate: the lower sweep plane by plane in increasing k,
// pipelined from rank 0 upward (rank r starts plane k when it is free and
// rank r-1's row of plane k has arrived); the upper sweep in decreasing k
// from the last rank downward (the update's two halves ride on the sweeps'
// planes, as in lu); the halo exchange with both neighbours; rhs. Messages take latency + bytes / bandwidth
// and never block the sender (MPI_Isend). Ranks are not synchronised between iterations except where the
// caller says (the balancer's all-gather).
#include <span>
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
};

/// One rank's share of one iteration.
struct RankIteration {
  double compute = 0.0;  // seconds computing
  double wait = 0.0;     // seconds waiting for messages (pipeline and halo)
};

class StripeModel {
 public:
  StripeModel(GridSize grid, CostModel cost, int ranks);

  /// Advances every rank through one iteration. `slowdown[r]` multiplies
  /// rank r's compute (1 / speed, times any noise).
  void iterate(std::span<const int> widths, std::span<const double> slowdown,
               std::vector<RankIteration>& out);
  /// Every rank waits for the last one (a collective), plus `seconds`; the
  /// waiting is added to `out` (the iteration just done).
  void synchronise(double seconds, std::vector<RankIteration>& out);
  /// The clock of the rank that is furthest ahead: the run's elapsed time.
  [[nodiscard]] double elapsed() const;
  [[nodiscard]] const CostModel& cost() const { return cost_; }

 private:
  double message_seconds(double bytes) const { return cost_.latency + bytes / cost_.bandwidth; }
  GridSize grid_;
  CostModel cost_;
  std::vector<double> clock_;  // per rank: when it is free
  std::vector<double> done_;   // per rank and plane: when the plane's row was sent
};

}  // namespace npblu::sim
