#include "balance/window_summary.hpp"

#include <algorithm>
#include <vector>

namespace npblu {

namespace {
double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  const auto mid = v.begin() + v.size() / 2;
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2 == 1) return *mid;
  return 0.5 * (*mid + *std::max_element(v.begin(), mid));
}
}  // namespace

RankWindow summarize_window(std::span<const IterationTiming> window, bool after_migration) {
  if (after_migration && window.size() > 1) window = window.subspan(1);
  std::vector<double> compute, wait;
  double on_cpu = 0.0, runnable = 0.0;
  for (const auto& it : window) {
    compute.push_back(it.compute);
    wait.push_back(it.wait);
    on_cpu += it.on_cpu;
    runnable += it.on_cpu + it.run_delay;
  }
  const double n = static_cast<double>(window.size());
  const double share = runnable > 0.0 ? on_cpu / runnable : 1.0;
  return {median(compute) * n, median(wait) * n, share};
}

}  // namespace npblu
