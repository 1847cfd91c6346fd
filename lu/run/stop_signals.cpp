#include "lu/run/stop_signals.hpp"

#include <stdexcept>

namespace npblu {

namespace {

// The one piece of global mutable state in the project, and unavoidable: a
// signal handler can reach nothing else, and may only store to a volatile
// sig_atomic_t. It is written by the handler and by the one live
// StopSignals (which owns it: cleared on construction, polled, and no
// handler points here once it is gone).
volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void record_stop_signal(int signal) { g_stop_signal = signal; }

bool handler_installed() {
  struct sigaction current {};
  sigaction(SIGTERM, nullptr, &current);
  return current.sa_handler == record_stop_signal;
}

struct sigaction install(int signal) {
  struct sigaction action {
  }, previous{};
  action.sa_handler = record_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // MPI's and the file system's system calls carry on
  sigaction(signal, &action, &previous);
  return previous;
}

}  // namespace

StopSignals::StopSignals(WhenGone when_gone) : when_gone_(when_gone) {
  if (handler_installed()) throw std::logic_error("StopSignals: one is already alive");
  g_stop_signal = 0;
  previous_term_ = install(SIGTERM);
  previous_int_ = install(SIGINT);
}

StopSignals::~StopSignals() {
  if (when_gone_ == WhenGone::ignore) {
    std::signal(SIGTERM, SIG_IGN);
    std::signal(SIGINT, SIG_IGN);
    return;
  }
  sigaction(SIGTERM, &previous_term_, nullptr);
  sigaction(SIGINT, &previous_int_, nullptr);
}

int StopSignals::received() const { return g_stop_signal; }

const char* signal_name(int signal) {
  switch (signal) {
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
    default:
      return "a signal";
  }
}

}  // namespace npblu
