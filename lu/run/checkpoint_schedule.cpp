#include "lu/run/checkpoint_schedule.hpp"

#include "lu/mpi/communicator.hpp"
#include "lu/mpi/messages.hpp"
#include "lu/run/stop_signals.hpp"

namespace npblu {

namespace {

// The signal any rank got (the largest number), the same on every rank.
// Agreed after every iteration: waited for as the solver waits.
int agreed_signal(const StopSignals& signals, MPI_Comm comm, WaitMode wait) {
  return Communicator::borrow(comm).all_reduce_max(signals.received(), wait);
}

// `text` as one shell word: as is when safe, else in single quotes.
std::string shell_quoted(const std::string& text) {
  const bool safe = !text.empty() && text.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789@%+=:,./-_") == std::string::npos;
  if (safe) return text;
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

void advance_with_checkpoints(BenchmarkSession& session, const StopSignals& signals,
                              const CheckpointConfig& checkpoint, MPI_Comm comm) {
  while (!session.finished()) {
    session.advance(1);
    const int signal = agreed_signal(signals, comm, session.solver().wait_mode());
    if (session.finished()) return;  // nothing left to continue: the run ends normally
    const bool due = checkpoint.every > 0 && session.iterations_done() % checkpoint.every == 0;
    if (due || signal != 0) session.write_checkpoint(checkpoint.path);
    if (signal != 0) {
      throw RunInterrupted(std::string("stopped by ") + signal_name(signal) + " after iteration " +
                           std::to_string(session.iterations_done()) + " of " +
                           std::to_string(session.iterations()) + "; checkpoint written to " +
                           quote_value(checkpoint.path.string()) + ": continue with --restart " +
                           shell_quoted(checkpoint.path.string()));
    }
  }
}

}  // namespace

BenchmarkOutcome run_with_checkpoints(const RunConfig& config, MPI_Comm comm, std::ostream* out,
                                      const std::string& command_line, AfterRun after) {
  // From before the session (its start-up can take a while: a restart, the warm-up) to its end; in the lu
  // command until the process exits (a signal there once killed runs that had reported SUCCESSFUL).
  const StopSignals signals(after == AfterRun::process_exits ? StopSignals::WhenGone::ignore
                                                             : StopSignals::WhenGone::restore);
  BenchmarkSession session(config, comm, out, command_line);
  advance_with_checkpoints(session, signals, config.checkpoint, comm);
  BenchmarkOutcome outcome = session.finish();
  if (const int late = agreed_signal(signals, comm, session.solver().wait_mode());
      late != 0 && out && Communicator::borrow(comm).rank() == 0)
    *out << " " << signal_name(late) << " after the last iteration: ignored, the run was complete\n"
         << std::flush;
  return outcome;
}

}  // namespace npblu
