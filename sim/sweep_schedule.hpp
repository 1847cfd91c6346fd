#pragma once
// SweepSchedule: when, in one SSOR sweep of a stripe, lu waits for a plane's
// halo row from the neighbour stripe and when it has a plane's edge row
// final to send on (lu/sweeps.hpp, SweepNeighbours), as pieces of the
// sweep's work between those events. Both models of an iteration
// (sim/stripe_model.hpp, sim/time_shared_model.hpp) pipeline the sweeps
// through it, so that they follow the kernel lu picks for the stripe's width
// and the pipeline's length (sweeps_by_hyperplanes, lu/sweeps.hpp):
//  - plane by plane (narrow stripes, long pipelines): plane s is needed
//    before its work and done after it, so a neighbour waits a plane;
//  - by hyperplanes of `lanes` planes (HyperplaneOrder, lu/sweeps.hpp):
//    plane q is needed before step start(q) and done after step
//    start(q) + width - 1, lanes planes swept at once: a neighbour waits a
//    stripe's width of steps, the time of some `lanes` planes.
// Planes are numbered in the sweep's order (step s: k = 1 + s in the lower
// sweep, k = nz - 2 - s in the upper), which is the same on every rank.
#include <map>
#include <vector>

namespace npblu::sim {

/// A piece of a sweep's work: wait for plane `needs` from the neighbour
/// first (-1: nothing to wait for), then compute `work` (in planes of this
/// stripe: the pieces of a sweep add up to its planes), then plane `done` is
/// final (-1: none).
struct SweepSegment {
  int needs = -1;
  double work = 0.0;
  int done = -1;
};

/// The pieces of one sweep (the lower and the upper have the same shape).
struct SweepSchedule {
  std::vector<SweepSegment> segments;
  std::vector<int> segment_done;  // per plane: the segment after which it is final
};

/// The sweep of a stripe of `width` rows over `planes` planes in a pipeline
/// of `ranks` stripes, by the kernel lu picks there at `lanes` vector lanes
/// (sweeps_by_hyperplanes, lu/sweeps.hpp; 1 lane: always plane by plane).
/// Throws std::invalid_argument on planes < 0, width < 0, lanes < 1 or ranks < 1.
SweepSchedule sweep_schedule(int planes, int width, int lanes, int ranks);

/// sweep_schedule() for one grid, kernel level and pipeline, kept by width (a
/// run's stripes take few widths).
class SweepSchedules {
 public:
  SweepSchedules(int planes, int lanes, int ranks);
  const SweepSchedule& of_width(int width) const;
  /// The most segments a sweep of any width has (2 planes - 1).
  [[nodiscard]] int max_segments() const { return planes_ > 0 ? 2 * planes_ - 1 : 0; }

 private:
  int planes_, lanes_, ranks_;
  mutable std::map<int, SweepSchedule> by_width_;  // a cache: what of_width gives never changes
};

}  // namespace npblu::sim
