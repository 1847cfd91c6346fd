#pragma once
// Timing the parts of an interval without slowing it down: the sweeps split
// every step into phases (pass A, pass B, update), a few thousand steps an
// iteration. A clock read at every boundary (steady_clock, ordered: it waits
// for the work before it) kept the out-of-order core from overlapping one
// pass with the next: 4% of a class W run (3% of class A's sweeps) at v4 on
// an AMD EPYC Zen 5 VM, whose clock reads cost 33 ns (sweeps by rows, before
// the hyperplanes). So the interval's two ends are read, and its parts only
// on a sample of rows (steps): each part gets the interval's seconds in proportion to its
// seconds on the sampled rows. The total is exact; the split is that of the
// sampled rows, each part timed as before. Intervals the caller pauses (its
// own work between rows) count for no part.
#include <array>

#include "lu/wall_clock.hpp"

namespace npblu {

/// `now` reads the clock (seconds); tests pass a clock of their own.
template <int N, double (*now)() = wall_seconds>
class SampledSplit {
 public:
  SampledSplit() : start_(now()) {}

  /// A row starts: it is timed part by part when `sampled`, else not at all.
  void start_row(bool sampled) {
    sampling_ = sampled;
    if (sampling_) last_ = now();
  }

  /// On a sampled row, gives part p the seconds since the row's start or its
  /// last charge; on another row, nothing.
  void charge(int part) {
    if (!sampling_) return;
    const double t = now();
    sampled_[part] += t - last_;
    last_ = t;
  }

  /// Leaves the seconds from here to resume() out of the interval (the
  /// caller's own work between rows: a sweep's messages).
  void pause() { paused_at_ = now(); }
  void resume() { excluded_ += now() - paused_at_; }

  /// Seconds of each part: the interval's seconds up to now (the paused ones
  /// excluded), in proportion to the parts' sampled seconds (all to part 0
  /// when nothing was sampled).
  [[nodiscard]] std::array<double, N> seconds() const {
    const double total = now() - start_ - excluded_;
    double sampled = 0.0;
    for (const double s : sampled_) sampled += s;
    std::array<double, N> out{};
    if (!(sampled > 0.0)) {
      out[0] = total;
      return out;
    }
    for (int p = 0; p < N; ++p) out[p] = total * (sampled_[p] / sampled);
    return out;
  }

 private:
  double start_;
  double last_ = 0.0;
  double paused_at_ = 0.0;
  double excluded_ = 0.0;
  bool sampling_ = false;
  std::array<double, N> sampled_{};
};

}  // namespace npblu
