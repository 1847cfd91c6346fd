#pragma once
// How a rank waits for a message it needs: spinning in MPI_Wait (what MPI
// libraries do by default; the fastest hand-off when the rank has a core of
// its own), or polling with MPI_Test and sleeping between polls. On a core
// shared with other work a spinning rank burns its own time slices waiting,
// and when the message arrives it may be queued behind the other work for a
// whole slice; a sleeping rank leaves the core to the other work while it
// waits and, having run less, is the one the kernel's scheduler favours when
// it wakes.
#include <mpi.h>

#include <string>

namespace npblu {

enum class WaitMode {
  spin,       // MPI_Wait / MPI_Waitall
  sleep,      // MPI_Test a few times, then sleep between polls
  automatic,  // spin while the rank has its core to itself, sleep while it shares it (AutomaticWait)
};

/// "spin", "sleep" or "auto"; throws std::invalid_argument otherwise.
WaitMode parse_wait_mode(const std::string& text);
std::string to_string(WaitMode mode);

/// The automatic choice, made by each rank for itself (how a rank waits
/// changes nothing in what it computes, so ranks need not agree): after each
/// iteration, from the share of its core the rank got while it was runnable
/// (Linux schedstat: on-CPU / (on-CPU + run delay)). Below 0.8 in 3
/// iterations in a row the core is shared and the rank sleeps while it waits;
/// above 0.95 it spins again (the gap and the streak keep a short burst of OS
/// noise from flipping it back and forth).
/// Without schedstat (share unknown) it spins. A rank whose core is shared
/// with other ranks of the same run (more ranks than cores) always spins:
/// there the MPI library yields while it polls (Open MPI does when it knows
/// the node is oversubscribed), which hands the core straight to the rank
/// that is computing what we wait for, and sleeping measured slower.
class AutomaticWait {
 public:
  static constexpr double kSleepBelowShare = 0.8;
  static constexpr double kSpinAboveShare = 0.95;
  static constexpr int kSharedIterations = 3;
  explicit AutomaticWait(bool may_sleep = true) : may_sleep_(may_sleep) {}
  /// Seconds on a core and runnable-but-waiting during the last iteration.
  WaitMode update(double on_cpu, double run_delay);
  [[nodiscard]] WaitMode current() const { return current_; }

 private:
  bool may_sleep_ = true;
  int shared_streak_ = 0;  // iterations in a row below kSleepBelowShare
  WaitMode current_ = WaitMode::spin;
};

/// Collective over `comm`: whether this rank may share a core with another
/// rank of `comm` on its node: more ranks are allowed to run on the cores of
/// this rank's CPU affinity set than it has cores (Linux affinity masks; where
/// they are unknown, every rank counts as allowed on every core).
bool shares_core_with_peer(MPI_Comm comm);

/// Completes `request` the way `mode` says (automatic: as spin) (MPI errors through check_mpi).
void wait_for(MPI_Request& request, WaitMode mode);
/// Completes all `count` requests the way `mode` says.
void wait_for_all(int count, MPI_Request* requests, WaitMode mode);

}  // namespace npblu
