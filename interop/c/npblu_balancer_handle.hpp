#pragma once
// The balance API's handle (npblu_balance.h): a balancer over a duplicate of
// the caller's communicator, the feeds of its window and how the rank waits.
// Shared by the API's files (npblu_balance_c.cpp: create, feed, decide;
// npblu_balance_migrate_c.cpp: the caller's arrays moved).
#include <cstddef>
#include <string>
#include <vector>

#include "interop/c/npblu_balance.h"
#include "lu/migration/collective_balancer.hpp"
#include "lu/mpi/communicator.hpp"
#include "lu/mpi/request_wait.hpp"
#include "lu/run_queue_clock.hpp"

struct npblu_balancer {
  npblu::Communicator comm;            // ours: a duplicate of the caller's
  npblu::CollectiveBalancer balancer;  // its session holds the current partition and the one before
  std::vector<npblu::IterationTiming> window;
  int fed = 0;           // feeds so far: the iteration the session counts (due) and the horizon of a step
  std::string bad_feed;  // why a feed of this window was refused ("" if none)
  npblu::RunQueueClock clock;
  npblu::RunQueueClock::Reading last_reading;
  bool core_share = true;  // read the run-queue clock between feeds
  // How this rank waits in the deciding feed's collectives and the
  // migration: the solver's auto rule for a rank's peers (AutomaticWait's
  // first choice: sleeping between polls where it shares a core with another
  // rank under a library that keeps the core while it polls, else spinning).
  npblu::WaitMode wait = npblu::WaitMode::spin;
  std::size_t unread = 0;       // the first feed of `window` the clock has not yet been read after
  double unread_seconds = 0.0;  // the fed time of those feeds
  std::string error;

  // What a step is priced at until one was timed. A caller's first
  // migration writes its arrays into memory it may never have touched, and
  // each new page is a fault: heat_balance's first step (3 MB a rank,
  // 512 x 480) took 10-14 ms on a KVM guest, 100-140 of its 0.1 ms steps,
  // where the solver's prior of one step would have priced it at 0.1 ms
  // and let a transient of its first 35 steps move columns for good.
  // Steps longer than this are priced at one step, as in the solver.
  static constexpr double kFirstStepPrice = 0.01;

  npblu_balancer(npblu::Communicator c, const npblu::BalancerSettings& s, const npblu::Partition& start,
                 bool read_core_share)
      : comm(std::move(c)), balancer(s, start, comm.get()), core_share(read_core_share) {
    // Made-up fed times (core_share off) say nothing about what deciding
    // costs against them: the cadence then stays `every`.
    balancer.set_time_decisions(read_core_share);
    balancer.session().set_prior_price(kFirstStepPrice);
    wait = npblu::AutomaticWait(npblu::core_peers(comm.get())).current();
    if (core_share) last_reading = clock.read();
  }
};
