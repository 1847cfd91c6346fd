#pragma once
// StripeModel: event times of one SSOR iteration of LU on columnwise
// stripes, per rank, without computing anything. The same schedule as
// LuSolver::iterate: the lower sweep in increasing k, pipelined from rank 0
// upward (a rank waits for rank r-1's row of a plane before it first reads
// it), the upper sweep in decreasing k from the last rank downward, each
// with the kernel lu picks for the stripe's width, plane by plane or by
// hyperplanes (sim/sweep_schedule.hpp; the update's two halves ride on the
// sweeps, as in lu); the halo exchange with both neighbours; rhs. Messages
// take latency + bytes / bandwidth and never block the sender (MPI_Isend).
// Ranks are not synchronised between iterations except where the caller says
// (the balancer's all-gather).
#include <span>
#include <vector>

#include "lu/grid.hpp"
#include "sim/iteration_model.hpp"
#include "sim/sweep_schedule.hpp"

namespace npblu::sim {

class StripeModel final : public IterationModel {
 public:
  StripeModel(GridSize grid, CostModel cost, int ranks);

  /// Advances every rank through one iteration. `slowdown[r]` multiplies
  /// rank r's compute (1 / speed, times any noise).
  void iterate(std::span<const int> widths, std::span<const double> slowdown,
               std::vector<RankIteration>& out);
  /// Each rank has its core: the next iteration changes nothing in this one.
  void iterate(const IterationLoad& now, const IterationLoad*, std::vector<RankIteration>& out) override {
    iterate(now.widths, now.slowdown, out);
  }
  void synchronise(double seconds, std::vector<RankIteration>& out) override;
  [[nodiscard]] double elapsed() const override;

 private:
  ScheduleCosts costs_;
  SweepSchedules schedules_;
  int max_segments_;
  std::vector<double> clock_;        // per rank: when it is free
  std::vector<double> segment_end_;  // per rank and segment of the current sweep: when it ended
};

}  // namespace npblu::sim
