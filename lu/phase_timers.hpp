#pragma once
// Seconds per phase of the SSOR iteration, accumulated on one rank.
#include <array>
#include <string_view>

namespace npblu {

// emulated_delay: the spinning that emulates a slower rank (--emulate-speeds).
enum class Phase {
  rhs,
  jacld,
  blts,
  jacu,
  buts,
  halo_exchange,
  pipeline_wait,
  norms,
  update,
  emulated_delay,
  migration,  // balancing decisions and moving columns (--balance diffusive)
  count
};

class PhaseTimers {
 public:
  static constexpr int kCount = static_cast<int>(Phase::count);

  double& operator[](Phase p) { return seconds_[static_cast<int>(p)]; }
  double operator[](Phase p) const { return seconds_[static_cast<int>(p)]; }
  [[nodiscard]] const std::array<double, kCount>& values() const { return seconds_; }
  void clear() { seconds_.fill(0.0); }

  /// Time computing, including any emulated slowdown: what a slower node would show.
  [[nodiscard]] double compute() const {
    using enum Phase;
    return (*this)[rhs] + (*this)[jacld] + (*this)[blts] + (*this)[jacu] + (*this)[buts] + (*this)[update] +
           (*this)[emulated_delay];
  }
  /// Time in communication, mostly blocked in MPI_Wait: the pipeline and the halo exchange.
  [[nodiscard]] double wait() const { return (*this)[Phase::pipeline_wait] + (*this)[Phase::halo_exchange]; }

  static constexpr std::string_view name(Phase p) {
    constexpr std::array<std::string_view, kCount> names = {
        "rhs",           "jacld", "blts",   "jacu",           "buts",     "halo_exchange",
        "pipeline_wait", "norms", "update", "emulated_delay", "migration"};
    return names[static_cast<int>(p)];
  }

 private:
  std::array<double, kCount> seconds_{};
};

}  // namespace npblu
