#include "lu/io/partition_trace.hpp"

#include "lu/mpi/agreement.hpp"

namespace npblu {

void PartitionTrace::on_iteration(int iteration, std::span<const IterationRecord> history,
                                  std::span<const BalanceMove> moves, WaitMode wait) {
  if (flush_every_ > 0 && iteration % flush_every_ == 0) write(history, moves, wait);
}

void PartitionTrace::finish(std::span<const IterationRecord> history, std::span<const BalanceMove> moves) {
  write(history, moves, {});
  std::string failure;
  try {
    if (writer_) writer_->commit();  // a trace written aside goes into place now, complete
  } catch (const std::exception& e) {
    failure = std::string("writing the trace failed: ") + e.what();
  }
  writer_.reset();
  agree<RunFailure>(failure.empty(), failure, comm_);
}

void PartitionTrace::write(std::span<const IterationRecord> history, std::span<const BalanceMove> moves,
                           Waited wait) {
  const auto fresh = history.subspan(std::min(iterations_written_, history.size()));
  const int first = iterations_before_ + static_cast<int>(iterations_written_) + 1;
  const RunHistory rows = gather_history(fresh, comm_, wait);
  iterations_written_ = history.size();
  std::string failure;
  try {
    if (writer_) append(rows, first, moves);
  } catch (const std::exception& e) {
    failure = std::string("writing the trace failed: ") + e.what();
    writer_.reset();
  }
  agree<RunFailure>(failure.empty(), failure, comm_, wait);
}

void PartitionTrace::append(const RunHistory& rows, int first_iteration, std::span<const BalanceMove> moves) {
  writer_->append(rows, first_iteration, rows.bottleneck_ratio_by_iteration(max_widths_));
  if (moves.size() > moves_written_) writer_->append_moves(moves.subspan(moves_written_));
  moves_written_ = moves.size();
  writer_->flush();
}

}  // namespace npblu
