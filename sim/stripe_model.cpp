#include "sim/stripe_model.hpp"

#include <algorithm>
#include <stdexcept>

namespace npblu::sim {

StripeModel::StripeModel(GridSize grid, CostModel cost, int ranks)
    : costs_(grid, cost),
      schedules_(costs_.planes, costs_.lanes, std::max(ranks, 1)),
      max_segments_(schedules_.max_segments()),
      clock_(ranks, 0.0),
      segment_end_(std::size_t(std::max(ranks, 0)) * max_segments_, 0.0) {
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
  // The sweeps, piece by piece between their messages (sim/sweep_schedule.hpp):
  // the lower from rank 0 upward, the upper from the last rank downward.
  auto sweep = [&](int r, int from, double plane) {
    const SweepSchedule& schedule = schedules_.of_width(widths[r]);
    const SweepSchedule* sender = from >= 0 && from < ranks ? &schedules_.of_width(widths[from]) : nullptr;
    for (const SweepSegment& s : schedule.segments) {
      if (s.needs >= 0 && sender) {
        const double sent = segment_end_[std::size_t(from) * max_segments_ + sender->segment_done[s.needs]];
        wait_until(r, sent + row_message);
      }
      compute(r, s.work * plane);
      segment_end_[std::size_t(r) * max_segments_ + (&s - schedule.segments.data())] = clock_[r];
    }
  };
  for (int r = 0; r < ranks; ++r) sweep(r, r - 1, costs_.lower_plane(widths[r], slowdown[r]));
  for (int r = ranks - 1; r >= 0; --r) sweep(r, r + 1, costs_.upper_plane(widths[r], slowdown[r]));
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
