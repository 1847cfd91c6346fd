#include "lu/app/runtime_balancing.hpp"

#include "balance/window_summary.hpp"

namespace npblu {

std::optional<Partition> RuntimeBalancing::step(int iteration, const Partition& current,
                                                std::span<const IterationRecord> window) {
  std::vector<IterationTiming> timings;
  timings.reserve(window.size());
  for (const auto& rec : window) timings.push_back({rec.compute, rec.wait, rec.on_cpu, rec.run_delay});
  BalanceDecision d = balancer_.decide(current, timings);
  if (d.moved_columns == 0) return std::nullopt;
  ++steps_;
  moved_columns_ += d.moved_columns;
  for (int b = 0; b < static_cast<int>(d.moves.size()); ++b) {
    if (d.moves[b] != 0) moves_.push_back({iteration, b, d.moves[b]});
  }
  return std::move(d.partition);
}

}  // namespace npblu
