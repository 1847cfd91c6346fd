#pragma once
// A request to stop, from SIGTERM or SIGINT (what a batch scheduler sends
// before it kills a job, and Ctrl-C): while a StopSignals is alive, those
// signals only set a flag the run polls between iterations, so it can
// finish the iteration, write a checkpoint and exit cleanly. The previous
// handlers come back when it goes, or, for a process that exits after it
// (WhenGone::ignore), the signals are ignored from then on: a stop request
// between the end of the run and the exit must not kill a complete run. At
// most one is alive at a time.
#include <csignal>

namespace npblu {

class StopSignals {
 public:
  enum class WhenGone { restore, ignore };
  explicit StopSignals(
      WhenGone when_gone = WhenGone::restore);  // throws std::logic_error if another one is alive
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  /// The signal received since construction (SIGTERM, SIGINT), or 0.
  [[nodiscard]] int received() const;

 private:
  struct sigaction previous_term_ {};
  struct sigaction previous_int_ {};
  WhenGone when_gone_ = WhenGone::restore;
};

/// "SIGTERM", "SIGINT" or "signal N".
const char* signal_name(int signal);

}  // namespace npblu
