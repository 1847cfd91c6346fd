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

#include <optional>
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

/// How a collective waits (Communicator's collectives, agree): none given,
/// in the blocking call; given, in the non-blocking one completed by wait_for.
using Waited = std::optional<WaitMode>;

/// Whether other ranks of the run may run on a rank's cores, and if so how
/// the MPI library waits for messages there.
enum class CorePeers {
  none,      // the rank's cores are its own among the run's ranks
  yielding,  // shared with peers, and the library gives the core away while it polls
  spinning,  // shared with peers, and the library keeps the core while it polls
};

/// How a rank waits, as the report and the JSON name it: "spin", "sleep",
/// or under auto "auto/own-cores", "auto/shared-yielding" (spins),
/// "auto/shared-polling" (sleeps between polls).
std::string wait_policy_name(WaitMode mode, CorePeers peers);

/// The automatic choice, made by each rank for itself (how a rank waits
/// changes nothing in what it computes, so ranks need not agree).
///  - none: after each iteration, from the share of its core the rank got
///    while it was runnable (Linux schedstat: on-CPU / (on-CPU + run
///    delay)). Below 0.8 in 3 iterations in a row the core is shared with
///    other work and the rank sleeps while it waits; above 0.95 it spins
///    again (the gap and the streak keep a short burst of OS noise from
///    flipping it back and forth). Without schedstat (share unknown) it spins.
///  - yielding: always spins. The library's poll hands the core straight to
///    the peer computing what the rank waits for (Open MPI does when it
///    knows the node is oversubscribed); sleeping measured slower.
///  - spinning: always sleeps. A poll that keeps the core makes the peer
///    computing what the rank waits for wait a whole time slice at each
///    hand-off (class W, 3 ranks on 2 cores, MPICH ch4:ucx: 3.5-4.1 s
///    spinning against 0.51 s sleeping; Open MPI told not to yield: 3.50 s
///    against 0.60 s).
class AutomaticWait {
 public:
  static constexpr double kSleepBelowShare = 0.8;
  static constexpr double kSpinAboveShare = 0.95;
  static constexpr int kSharedIterations = 3;
  explicit AutomaticWait(CorePeers peers = CorePeers::none)
      : peers_(peers), current_(peers == CorePeers::spinning ? WaitMode::sleep : WaitMode::spin) {}
  /// Seconds on a core and runnable-but-waiting during the last iteration.
  WaitMode update(double on_cpu, double run_delay);
  [[nodiscard]] WaitMode current() const { return current_; }
  [[nodiscard]] CorePeers peers() const { return peers_; }

 private:
  CorePeers peers_ = CorePeers::none;
  int shared_streak_ = 0;  // iterations in a row below kSleepBelowShare
  WaitMode current_ = WaitMode::spin;
};

/// Whether the MPI library says it gives the core away while it polls for a
/// message: Open MPI's control variable mpi_yield_when_idle, read through
/// the MPI tool interface (true when Open MPI knows the node is
/// oversubscribed). False where no library says so: MPICH's poll calls
/// sched_yield every MPIR_CVAR_POLLS_BEFORE_YIELD polls, which under Linux's
/// scheduler keeps the core (the spinning times above).
bool mpi_yields_while_polling();

/// Collective over `comm`: whether other ranks of `comm` may run on this
/// rank's cores (shares_core_with_peer), and if so whether the library
/// yields while it polls.
CorePeers core_peers(MPI_Comm comm);

/// Completes `request` the way `mode` says (automatic: as spin) (MPI errors through check_mpi).
void wait_for(MPI_Request& request, WaitMode mode);
/// Completes all `count` requests the way `mode` says.
void wait_for_all(int count, MPI_Request* requests, WaitMode mode);

}  // namespace npblu
