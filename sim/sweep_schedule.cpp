#include "sim/sweep_schedule.hpp"

#include <algorithm>
#include <stdexcept>

#include "lu/sweeps.hpp"

namespace npblu::sim {

namespace {

SweepSchedule by_planes(int planes) {
  SweepSchedule s;
  for (int p = 0; p < planes; ++p) s.segments.push_back({p, 1.0, p});
  return s;
}

/// lu/sweep_hyperplanes.cpp's loop: HyperplaneOrder's steps, every step the
/// same work (idle lanes cost as much as busy ones).
SweepSchedule by_hyperplanes(int planes, int width, int lanes) {
  const HyperplaneOrder order{planes, width, lanes};
  const double step_work = double(planes) / double(order.steps());
  SweepSchedule s;
  SweepSegment open;
  auto close = [&] {
    if (open.needs >= 0 || open.work > 0.0 || open.done >= 0) s.segments.push_back(open);
    open = {};
  };
  for (int h = 0; h < order.steps(); ++h) {
    if (const int q = order.starting_at(h); q >= 0) {
      close();
      open.needs = q;
    }
    open.work += step_work;
    if (const int q = order.finishing_at(h); q >= 0) {
      open.done = q;
      close();
    }
  }
  close();
  return s;
}

}  // namespace

SweepSchedule sweep_schedule(int planes, int width, int lanes, int ranks) {
  if (planes < 0 || width < 0 || lanes < 1 || ranks < 1)
    throw std::invalid_argument(
        "a sweep schedule needs planes >= 0, a width >= 0, lanes >= 1 and ranks >= 1");
  SweepSchedule s = sweeps_by_hyperplanes(width, planes, ranks, lanes) ? by_hyperplanes(planes, width, lanes)
                                                                       : by_planes(planes);
  s.segment_done.assign(planes, -1);
  for (int i = 0; i < int(s.segments.size()); ++i)
    if (s.segments[i].done >= 0) s.segment_done[s.segments[i].done] = i;
  return s;
}

SweepSchedules::SweepSchedules(int planes, int lanes, int ranks)
    : planes_(std::max(0, planes)), lanes_(lanes), ranks_(ranks) {
  if (lanes < 1 || ranks < 1) throw std::invalid_argument("the sweeps' lanes and ranks must be >= 1");
}

const SweepSchedule& SweepSchedules::of_width(int width) const {
  auto it = by_width_.find(width);
  if (it == by_width_.end())
    it = by_width_.emplace(width, sweep_schedule(planes_, width, lanes_, ranks_)).first;
  return it->second;
}

}  // namespace npblu::sim
