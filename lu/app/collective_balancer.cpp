#include "lu/app/collective_balancer.hpp"

#include <stdexcept>
#include <vector>

namespace npblu {

BalanceDecision CollectiveBalancer::decide(const Partition& current,
                                           std::span<const IterationTiming> window) {
  const RankWindow mine = summarize_window(window, migrated_last_step_);
  constexpr int kFields = sizeof(RankWindow) / sizeof(double);
  static_assert(sizeof(RankWindow) == kFields * sizeof(double));
  std::vector<RankWindow> all(current.ranks());
  if (MPI_Allgather(&mine, kFields, MPI_DOUBLE, all.data(), kFields, MPI_DOUBLE, comm_) != MPI_SUCCESS) {
    throw std::runtime_error("MPI failure in gathering the balancer's windows");
  }
  BalanceDecision d = balancer_.decide(current, all);
  migrated_last_step_ = d.moved_columns > 0;
  return d;
}

}  // namespace npblu
