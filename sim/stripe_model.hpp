#pragma once
// StripeModel: event times of one SSOR iteration of LU on columnwise
// stripes, per rank, without computing anything. The same schedule as
// LuSolver::iterate: the lower sweep plane by plane in increasing k,
// pipelined from rank 0 upward (rank r starts plane k when it is free and
// rank r-1's row of plane k has arrived); the upper sweep in decreasing k
// from the last rank downward (the update's two halves ride on the sweeps'
// planes, as in lu); the halo exchange with both neighbours; rhs. Messages take latency + bytes / bandwidth
// and never block the sender (MPI_Isend). Ranks are not synchronised between iterations except where the
// caller says (the balancer's all-gather). Not modelled yet: lu sweeps stripes of 24 rows or more by
// hyperplanes (lu/sweeps.cpp), where a plane's row is final some width steps after the plane starts,
// so a neighbour waits longer for its first plane than this plane-by-plane schedule says.
#include <span>
#include <vector>

#include "lu/grid.hpp"
#include "sim/iteration_model.hpp"

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
  std::vector<double> clock_;  // per rank: when it is free
  std::vector<double> done_;   // per rank and plane: when the plane's row was sent
};

}  // namespace npblu::sim
