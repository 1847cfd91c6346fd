#include "sim/stripe_model.hpp"

#include <algorithm>
#include <stdexcept>

namespace npblu::sim {

StripeModel::StripeModel(GridSize grid, CostModel cost, int ranks)
    : costs_(grid, cost), clock_(ranks, 0.0), done_(std::size_t(ranks) * std::max(0, grid.nz - 2), 0.0) {
  if (ranks < 1) throw std::invalid_argument("the model needs at least one rank");
}

double StripeModel::elapsed() const { return *std::max_element(clock_.begin(), clock_.end()); }

void StripeModel::synchronise(double seconds, std::vector<RankIteration>& out) {
  const double all = elapsed() + seconds;
  for (std::size_t r = 0; r < clock_.size(); ++r) {
    out[r].wait += all - clock_[r];
    out[r].on_cpu += all - clock_[r];  // MPI polls on the rank's own core
    clock_[r] = all;
  }
}

void StripeModel::iterate(std::span<const int> widths, std::span<const double> slowdown,
                          std::vector<RankIteration>& out) {
  const int ranks = static_cast<int>(clock_.size());
  const int planes = costs_.planes;
  const double row_message = costs_.row_message, halo_message = costs_.halo_message;
  out.assign(ranks, {});
  auto compute = [&](int r, double seconds) {
    out[r].compute += seconds;
    clock_[r] += seconds;
  };
  auto wait_until = [&](int r, double t) {
    if (t > clock_[r]) {
      out[r].wait += t - clock_[r];
      clock_[r] = t;
    }
  };
  // Lower sweep: k upward, rank 0 first.
  for (int r = 0; r < ranks; ++r) {
    const double plane = costs_.lower_plane(widths[r], slowdown[r]);
    for (int k = 0; k < planes; ++k) {
      if (r > 0) wait_until(r, done_[std::size_t(r - 1) * planes + k] + row_message);
      compute(r, plane);
      done_[std::size_t(r) * planes + k] = clock_[r];
    }
  }
  // Upper sweep: k downward, the last rank first.
  for (int r = ranks - 1; r >= 0; --r) {
    const double plane = costs_.upper_plane(widths[r], slowdown[r]);
    for (int k = planes - 1; k >= 0; --k) {
      if (r + 1 < ranks) wait_until(r, done_[std::size_t(r + 1) * planes + k] + row_message);
      compute(r, plane);
      done_[std::size_t(r) * planes + k] = clock_[r];
    }
  }
  // Halo exchange: each rank needs both neighbours' updated edge columns.
  const std::vector<double> sent = clock_;
  for (int r = 0; r < ranks; ++r) {
    double arrived = clock_[r];
    if (r > 0) arrived = std::max(arrived, sent[r - 1] + halo_message);
    if (r + 1 < ranks) arrived = std::max(arrived, sent[r + 1] + halo_message);
    wait_until(r, arrived);
  }
  for (int r = 0; r < ranks; ++r) {
    compute(r, costs_.rhs_stripe(widths[r], slowdown[r]));
    out[r].on_cpu = out[r].compute + out[r].wait;  // MPI polls on the rank's own core
  }
}

}  // namespace npblu::sim
