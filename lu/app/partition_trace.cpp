#include "lu/app/partition_trace.hpp"

namespace npblu {

void PartitionTrace::on_iteration(int iteration, std::span<const IterationRecord> history,
                                  std::span<const BalanceMove> moves) {
  if (flush_every_ > 0 && iteration % flush_every_ == 0) write(history, moves);
}

void PartitionTrace::finish(std::span<const IterationRecord> history, std::span<const BalanceMove> moves) {
  write(history, moves);
  writer_.reset();
}

void PartitionTrace::write(std::span<const IterationRecord> history, std::span<const BalanceMove> moves) {
  const auto fresh = history.subspan(std::min(iterations_written_, history.size()));
  const RunHistory rows = gather_history(fresh, emulation_, comm_, static_cast<int>(iterations_written_) + 1);
  iterations_written_ = history.size();
  if (!writer_) return;
  writer_->append(rows, static_cast<int>(iterations_written_ - fresh.size()) + 1);
  if (moves.size() > moves_written_) writer_->append_moves(moves.subspan(moves_written_));
  moves_written_ = moves.size();
  writer_->flush();
}

}  // namespace npblu
