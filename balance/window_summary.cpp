#include "balance/window_summary.hpp"

namespace npblu {

RankSamples samples_of(std::span<const IterationTiming> window) {
  RankSamples s;
  double on_cpu = 0.0, runnable = 0.0;
  for (const auto& it : window) {
    s.compute.push_back(it.compute);
    s.wait.push_back(it.wait);
    const double busy = it.on_cpu + it.run_delay;
    s.share.push_back(busy > 0.0 ? it.on_cpu / busy : 1.0);
    on_cpu += it.on_cpu;
    runnable += it.on_cpu + it.run_delay;
  }
  s.core_share = runnable > 0.0 ? on_cpu / runnable : 1.0;
  return s;
}

}  // namespace npblu
