#pragma once
// Seconds per phase of the SSOR iteration, accumulated on one rank.
#include <array>
#include <string_view>

namespace npblu {

enum class Phase { rhs, jacld, blts, jacu, buts, halo_exchange, pipeline_wait, norms, update, count };

class PhaseTimers {
 public:
  static constexpr int kCount = static_cast<int>(Phase::count);

  double& operator[](Phase p) { return seconds_[static_cast<int>(p)]; }
  double operator[](Phase p) const { return seconds_[static_cast<int>(p)]; }
  [[nodiscard]] const std::array<double, kCount>& values() const { return seconds_; }
  void clear() { seconds_.fill(0.0); }

  static constexpr std::string_view name(Phase p) {
    constexpr std::array<std::string_view, kCount> names = {
        "rhs", "jacld", "blts", "jacu", "buts", "halo_exchange", "pipeline_wait", "norms", "update"};
    return names[static_cast<int>(p)];
  }

 private:
  std::array<double, kCount> seconds_{};
};

}  // namespace npblu
