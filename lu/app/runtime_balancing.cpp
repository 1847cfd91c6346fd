#include "lu/app/runtime_balancing.hpp"

#include <algorithm>
#include <cstdlib>

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

std::optional<Partition> RuntimeBalancing::step(int iteration, const Partition& current,
                                                std::span<const IterationRecord> window) {
  // The first iteration after a migration pays for page faults in freshly
  // allocated fields: a transient, not the new stripe's cost.
  if (migrated_last_step_ && window.size() > 1) window = window.subspan(1);
  // Medians, scaled to the window: OS jitter on a shared node makes single
  // iterations up to twice as slow, and a sum would chase those spikes.
  std::vector<double> compute, wait;
  double on_cpu = 0.0, runnable = 0.0;
  for (const auto& rec : window) {
    compute.push_back(rec.compute);
    wait.push_back(rec.wait);
    on_cpu += rec.on_cpu;
    runnable += rec.on_cpu + rec.run_delay;
  }
  const double n = static_cast<double>(window.size());
  const double share = runnable > 0.0 ? on_cpu / runnable : 1.0;  // 1 where schedstat is unavailable
  const RankWindow mine{median(compute) * n, median(wait) * n, share};
  constexpr int kFields = sizeof(RankWindow) / sizeof(double);
  static_assert(sizeof(RankWindow) == kFields * sizeof(double));
  std::vector<RankWindow> all(current.ranks());
  MPI_Allgather(&mine, kFields, MPI_DOUBLE, all.data(), kFields, MPI_DOUBLE, comm_);
  BalanceDecision d = balancer_.decide(current, all);
  migrated_last_step_ = d.moved_columns > 0;
  if (d.moved_columns == 0) return std::nullopt;
  ++steps_;
  moved_columns_ += d.moved_columns;
  for (int b = 0; b < static_cast<int>(d.moves.size()); ++b) {
    if (d.moves[b] != 0) moves_.push_back({iteration, b, d.moves[b]});
  }
  return std::move(d.partition);
}

}  // namespace npblu
