#include "lu/app/runtime_balancing.hpp"

#include <cstdlib>

namespace npblu {

std::optional<Partition> RuntimeBalancing::step(int iteration, const Partition& current,
                                                std::span<const IterationRecord> window) {
  RankWindow mine;
  for (const auto& rec : window) {
    mine.compute += rec.compute;
    mine.wait += rec.wait;
  }
  static_assert(sizeof(RankWindow) == 2 * sizeof(double));
  std::vector<RankWindow> all(current.ranks());
  MPI_Allgather(&mine, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, comm_);
  BalanceDecision d = balancer_.decide(current, all);
  if (d.moved_columns == 0) return std::nullopt;
  ++steps_;
  moved_columns_ += d.moved_columns;
  for (int b = 0; b < static_cast<int>(d.moves.size()); ++b) {
    if (d.moves[b] != 0) moves_.push_back({iteration, b, d.moves[b]});
  }
  return std::move(d.partition);
}

}  // namespace npblu
