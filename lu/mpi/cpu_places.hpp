#pragma once
// Which CPUs the ranks of a node may run on (Linux affinity masks): whether
// a rank may share a core with another rank of the run (how it waits,
// lu/mpi/request_wait) and which ranks the scheduler places on the same
// cores (how the balancer reads their core shares, balance/share_pools).
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "balance/share_pools.hpp"

namespace npblu {

/// A CPU affinity mask: bit c of word c / 64 for CPU c.
using CpuMask = std::vector<std::uint64_t>;

/// The ranks of this rank's node and the CPUs each may run on.
struct NodeCpuMasks {
  std::vector<int> ranks;        // their ranks in the communicator, ascending
  std::vector<CpuPlace> places;  // their affinity masks (node 0: all this node), in the same order
  int self = 0;                  // this rank's index in both
};

/// The CPUs this process may run on (where the system does not say: every
/// CPU of the machine).
CpuMask own_cpu_mask();

/// Collective over `comm` the first time: the affinity masks of the ranks
/// of `comm` that share this rank's node, read at that first call and kept
/// with `comm` (the solver's wait mode and the balancer's share pools both
/// ask; at thousands of ranks each gather is a communicator split and two
/// all-gathers at start-up).
NodeCpuMasks node_cpu_masks(MPI_Comm comm);

/// Collective over `comm`: whether this rank may share a core with another
/// rank of `comm` on its node: more ranks are allowed to run on the cores of
/// this rank's CPU affinity set than it has cores (balance/share_pools'
/// crowded; where masks are unknown, every rank counts as allowed on every
/// core).
bool shares_core_with_peer(MPI_Comm comm);

}  // namespace npblu
