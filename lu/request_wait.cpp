#include "lu/request_wait.hpp"

#include <stdexcept>
#include <thread>

#include "lu/stripe_comm.hpp"
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

WaitMode AutomaticWait::update(double on_cpu, double run_delay) {
  const double busy = on_cpu + run_delay;
  if (busy > 0.0) {
    const double share = on_cpu / busy;
    if (share < kSleepBelowShare) current_ = WaitMode::sleep;
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

}  // namespace npblu
