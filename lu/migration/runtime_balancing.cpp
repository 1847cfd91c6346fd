#include "lu/migration/runtime_balancing.hpp"

#include "balance/window_summary.hpp"

namespace npblu {

void RuntimeBalancing::step(int iteration, const Partition& current, std::span<const IterationRecord> window,
                            LuSolver& solver) {
  // A restart from a checkpoint (or anything else) may have placed the
  // stripes: the session decides from where the solver is.
  if (current != balancer_.session().current()) balancer_.session().set_current(current);
  std::vector<IterationTiming> timings;
  timings.reserve(window.size());
  for (const auto& rec : window) timings.push_back({rec.compute, rec.wait, rec.on_cpu, rec.run_delay});
  const BalanceDecision& d = balancer_.decide(iteration, timings, iterations_ - iteration);
  if (d.moved_columns == 0) return;
  for (int b = 0; b < static_cast<int>(d.moves.size()); ++b) {
    if (d.moves[b] != 0) moves_.push_back({iteration, b, d.moves[b]});
  }
  const Partition next = d.partition;
  balancer_.timed_apply([&] { solver.repartition(next); });
}

}  // namespace npblu
