#include "lu/migration/runtime_balancing.hpp"

#include <algorithm>

#include "balance/window_summary.hpp"

namespace npblu {

bool RuntimeBalancing::step(int iteration, std::span<const IterationRecord> history, LuSolver& solver) {
  BalancerSession& session = balancer_.session();
  if (!session.due(iteration)) return false;
  // The window: the records since the last decision (a run resumed from a
  // checkpoint may have fewer).
  const auto window = history.last(std::min<std::size_t>(session.window_length(), history.size()));
  // A restart from a checkpoint (or anything else) may have placed the
  // stripes: the session decides from where the solver is.
  if (solver.partition() != session.current()) session.set_current(solver.partition());
  std::vector<IterationTiming> timings;
  timings.reserve(window.size());
  for (const auto& rec : window) timings.push_back({rec.compute, rec.wait, rec.on_cpu, rec.run_delay});
  const BalanceDecision& d =
      balancer_.decide(iteration, timings, iterations_ - iteration, solver.wait_mode());
  if (d.moved_columns == 0) return true;
  for (int b = 0; b < static_cast<int>(d.moves.size()); ++b) {
    if (d.moves[b] != 0) moves_.push_back({iteration, b, d.moves[b]});
  }
  const Partition next = d.partition;
  balancer_.timed_apply([&] { solver.repartition(next); });
  return true;
}

}  // namespace npblu
