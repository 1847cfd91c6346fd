#include "balance/window_summary.hpp"

namespace npblu {

RankSamples samples_of(std::span<const IterationTiming> window) {
  RankSamples s;
  double on_cpu = 0.0, runnable = 0.0;
  for (const auto& it : window) {
    s.compute.push_back(it.compute);
    s.wait.push_back(it.wait);
    s.share.push_back(core_share(it.on_cpu, it.run_delay));
    on_cpu += it.on_cpu;
    runnable += it.on_cpu + it.run_delay;
  }
  // Summed as (on_cpu + run_delay) per iteration, as the balancer always has: its decisions keep their bits.
  s.core_share = runnable > 0.0 ? on_cpu / runnable : 1.0;
  return s;
}

}  // namespace npblu
