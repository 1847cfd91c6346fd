#pragma once
// Reproducible heterogeneity: rank r computes at a fraction s_r of its real
// speed. After a compute phase that took t seconds the rank spins for
// t*(1/s_r - 1), so only compute is stretched, never time spent in MPI.
//
// Schedule syntax: "S0,S1,..." (one speed per rank, 0.01 <= s <= 1), optionally
// followed by ";@N:S0,S1,..." segments that take effect from timed iteration
// N on, e.g. "1,1;@80:1,0.5".
#include <string>
#include <vector>

namespace npblu {

/// Slowest emulated speed: a rank at most 100x slower. Below it a run would
/// only spin (1e-300 would spin for t x 1e300).
inline constexpr double kMinimumEmulatedSpeed = 0.01;

/// What is wrong with one speed of a list ("'x' is not a number", "speed '0'
/// is outside [0.01, 1] ..."), or "" for a speed a schedule takes.
std::string speed_problem(const std::string& item);

class SpeedSchedule {
 public:
  struct Segment {
    int from_iteration = 1;
    std::vector<double> speeds;
  };

  /// No emulation: every rank at full speed.
  SpeedSchedule() = default;
  /// The syntax alone (every list of the same length); throws
  /// std::invalid_argument naming the problem.
  static SpeedSchedule parse(const std::string& spec);
  /// The same, and one speed per rank of a run on `ranks` ranks.
  static SpeedSchedule parse(const std::string& spec, int ranks);
  /// Throws std::invalid_argument unless the lists have one speed per rank.
  void check_ranks(int ranks) const;

  [[nodiscard]] bool active() const { return !segments_.empty(); }
  /// Speed of `rank` during timed iteration `iteration` (1-based; the warm-up
  /// and calibration iterations count as iteration 1).
  [[nodiscard]] double speed(int rank, int iteration) const;
  [[nodiscard]] const std::vector<Segment>& segments() const { return segments_; }
  [[nodiscard]] const std::string& spec() const { return spec_; }

 private:
  std::vector<Segment> segments_;
  std::string spec_;
};

/// Busy-waits (the core stays occupied, like a slower processor) for `seconds`.
void spin_for(double seconds);

}  // namespace npblu
