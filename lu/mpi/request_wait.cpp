#include "lu/mpi/request_wait.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "lu/mpi/check_mpi.hpp"
#include "lu/mpi/cpu_places.hpp"
#include "lu/wall_clock.hpp"

namespace npblu {

namespace {

// Spin this long before the first sleep: on a dedicated core most pipeline
// hand-offs complete within it, so they pay no wake-up latency.
constexpr double kSpinBeforeSleep = 20e-6;
// Then sleep this long between polls: short next to a scheduler slice
// (milliseconds), long enough that the other work on the core gets it.
constexpr auto kSleepBetweenPolls = std::chrono::microseconds(20);

template <class Test>
void poll_then_sleep(Test&& test) {
  const double spin_until = wall_seconds() + kSpinBeforeSleep;
  while (!test()) {
    if (wall_seconds() >= spin_until) std::this_thread::sleep_for(kSleepBetweenPolls);
  }
}

}  // namespace

WaitMode parse_wait_mode(const std::string& text) {
  if (text == "spin") return WaitMode::spin;
  if (text == "sleep") return WaitMode::sleep;
  if (text == "auto") return WaitMode::automatic;
  throw std::invalid_argument("wait mode '" + text + "': expected spin, sleep or auto");
}

std::string to_string(WaitMode mode) {
  return mode == WaitMode::spin ? "spin" : mode == WaitMode::sleep ? "sleep" : "auto";
}

std::string wait_policy_name(WaitMode mode, CorePeers peers) {
  if (mode != WaitMode::automatic) return to_string(mode);
  switch (peers) {
    case CorePeers::none:
      return "auto/own-cores";
    case CorePeers::yielding:
      return "auto/shared-yielding";
    case CorePeers::spinning:
      return "auto/shared-polling";
  }
  return "auto";
}

WaitMode AutomaticWait::update(double on_cpu, double run_delay) {
  const double busy = on_cpu + run_delay;
  if (peers_ == CorePeers::none && busy > 0.0) {
    const double share = on_cpu / busy;
    shared_streak_ = share < kSleepBelowShare ? shared_streak_ + 1 : 0;
    if (shared_streak_ >= kSharedIterations) current_ = WaitMode::sleep;
    if (share > kSpinAboveShare) current_ = WaitMode::spin;
  }
  return current_;
}

void wait_for(MPI_Request& request, WaitMode mode) {
  if (mode != WaitMode::sleep) {
    check_mpi(MPI_Wait(&request, MPI_STATUS_IGNORE), "wait");
    return;
  }
  poll_then_sleep([&] {
    int done = 0;
    check_mpi(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "test");
    return done != 0;
  });
}

void wait_for_all(int count, MPI_Request* requests, WaitMode mode) {
  if (mode != WaitMode::sleep) {
    check_mpi(MPI_Waitall(count, requests, MPI_STATUSES_IGNORE), "wait");
    return;
  }
  poll_then_sleep([&] {
    int done = 0;
    check_mpi(MPI_Testall(count, requests, &done, MPI_STATUSES_IGNORE), "test");
    return done != 0;
  });
}

namespace {

/// The value of the boolean or integer MPI_T control variable `name` (not
/// bound to an MPI object); nullopt where the library has no such variable.
/// The tool interface is initialised and left so (calls nest; MPI_T may be
/// used before, during and after MPI_Init): MPICH 4.0.2 crashes in
/// MPI_T_cvar_get_num in a session begun after an earlier one was finalised
/// (a second solver in one process did), and a caller's own sessions would
/// too. The standard does not require MPI_T_finalize.
std::optional<bool> control_variable_flag(std::string_view name) {
  int provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return std::nullopt;
  std::optional<bool> value;
  int count = 0;
  if (MPI_T_cvar_get_num(&count) != MPI_SUCCESS) count = 0;
  for (int i = 0; i < count && !value; ++i) {
    char text[256];
    int length = sizeof text, verbosity = 0, binding = 0, scope = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_T_enum enumtype = MPI_T_ENUM_NULL;
    if (MPI_T_cvar_get_info(i, text, &length, &verbosity, &type, &enumtype, nullptr, nullptr, &binding,
                            &scope) != MPI_SUCCESS ||
        name != text || binding != MPI_T_BIND_NO_OBJECT)
      continue;
    int bytes = 0;
    MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
    int elements = 0;
    if (MPI_Type_size(type, &bytes) != MPI_SUCCESS || bytes < 1 || bytes > 8 ||
        MPI_T_cvar_handle_alloc(i, nullptr, &handle, &elements) != MPI_SUCCESS)
      continue;
    unsigned char raw[8] = {};  // a C bool or an integer: any non-zero byte is true
    if (elements == 1 && MPI_T_cvar_read(handle, raw) == MPI_SUCCESS)
      value = std::any_of(raw, raw + bytes, [](unsigned char b) { return b != 0; });
    MPI_T_cvar_handle_free(&handle);
  }
  return value;
}

}  // namespace

bool mpi_yields_while_polling() {
  // Set at MPI_Init and fixed for the process: read once.
  static const bool yields = control_variable_flag("mpi_yield_when_idle").value_or(false);
  return yields;
}

CorePeers core_peers(MPI_Comm comm) {
  if (!shares_core_with_peer(comm)) return CorePeers::none;
  return mpi_yields_while_polling() ? CorePeers::yielding : CorePeers::spinning;
}

}  // namespace npblu
