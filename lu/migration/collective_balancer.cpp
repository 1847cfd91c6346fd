#include "lu/migration/collective_balancer.hpp"

#include <algorithm>
#include <span>
#include <vector>

#include "balance/share_pools.hpp"
#include "lu/mpi/cpu_places.hpp"

namespace npblu {

namespace {
// One rank's report as doubles: [k, compute x every, wait x every, core
// share, migration seconds, share x every, decision seconds] (unused sample
// slots are zero). `every` is the window's length, the same on every rank.
std::vector<double> pack(const RankSamples& s, double migration_seconds, double decision_seconds, int every) {
  std::vector<double> v(3 * every + 4, 0.0);
  const int k = std::min<int>(every, static_cast<int>(s.compute.size()));
  v[0] = k;
  // The newest samples when the window is longer than a decision's.
  const int skip = static_cast<int>(s.compute.size()) - k;
  for (int t = 0; t < k; ++t) {
    v[1 + t] = s.compute[skip + t];
    v[1 + every + t] = s.wait[skip + t];
    v[3 + 2 * every + t] = s.share.size() == s.compute.size() ? s.share[skip + t] : s.core_share;
  }
  v[1 + 2 * every] = s.core_share;
  v[2 + 2 * every] = migration_seconds;
  v[3 + 3 * every] = decision_seconds;
  return v;
}

WindowReport unpack(const double* v, int every) {
  WindowReport r;
  const int k = std::clamp(static_cast<int>(v[0]), 0, every);
  r.samples.compute.assign(v + 1, v + 1 + k);
  r.samples.wait.assign(v + 1 + every, v + 1 + every + k);
  r.samples.core_share = v[1 + 2 * every];
  r.migration_seconds = v[2 + 2 * every];
  r.samples.share.assign(v + 3 + 2 * every, v + 3 + 2 * every + k);
  r.decision_seconds = v[3 + 3 * every];
  return r;
}

// Every rank's share pool (balance/share_pools), from the affinity masks
// of each node's ranks: pools are found node by node and named by the
// lowest rank of `comm` in them, then all-gathered (one int a rank).
std::vector<int> gather_share_pools(const Communicator& comm) {
  const NodeCpuMasks node = node_cpu_masks(comm.get());
  const int local = share_pools(node.places)[node.self];
  const int mine = local < 0 ? -1 : node.ranks[local];
  return comm.all_gather(std::span<const int>(&mine, 1));
}
}  // namespace

CollectiveBalancer::CollectiveBalancer(BalancerSettings settings, Partition start, MPI_Comm comm)
    : session_(settings, std::move(start)), comm_(Communicator::borrow(comm)) {
  session_.set_share_pools(gather_share_pools(comm_));
}

const BalanceDecision& CollectiveBalancer::decide(int iteration, std::span<const IterationTiming> window,
                                                  double remaining, WaitMode wait) {
  const double t0 = wall_seconds();
  const int every = session_.window_length();
  const std::vector<double> mine = pack(samples_of(window), migration_seconds_, decision_seconds_, every);
  const int ranks = session_.current().ranks();
  const int n = static_cast<int>(mine.size());
  const std::vector<double> all = comm_.all_gather(std::span(mine), wait);
  migration_seconds_ = 0.0;
  std::vector<WindowReport> reports;
  reports.reserve(ranks);
  for (int r = 0; r < ranks; ++r)
    reports.push_back(unpack(all.data() + static_cast<std::size_t>(r) * n, every));
  const BalanceDecision& d = session_.decide(iteration, reports, remaining);
  decision_seconds_ = time_decisions_ ? wall_seconds() - t0 : 0.0;  // reported with the next window
  return d;
}

}  // namespace npblu
