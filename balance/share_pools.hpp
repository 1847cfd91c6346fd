#pragma once
// Share pools: ranks whose share of a core is the scheduler's placement of
// the moment, not a property of the rank.
//
// Ranks of one node that may run on the same set of cores (the same CPU
// affinity), more of them than it has cores, time-share those cores, and
// the kernel decides which of them gets a core to itself and which share
// one: an unpinned run of 3 ranks on 2 cores (what `mpirun --oversubscribe`
// and MPICH's hydra launch by default) passed the whole core from rank to
// rank every 10-50 iterations of class A (AMD EPYC VM, Linux 6.18). Read
// rank by rank, those shares made the balancer give the rank holding the
// whole core of the moment up to 1.5x the columns, which the next
// placement turned into the slowest stripe. A pool's members are therefore
// read at the pool's mean share (DiffusiveBalancer::set_share_pools): over
// time each of them gets that share, and it does not follow the
// scheduler's placement.
//
// Pure: the ranks' places come from the caller (lu/migration/
// collective_balancer gathers each node's affinity masks with
// lu/mpi/cpu_places; lu-sim has its modelled cores).
#include <cstdint>
#include <span>
#include <vector>

namespace npblu {

/// Where a rank may run: its node and the CPUs of its affinity mask (bit c
/// of word c / 64 for CPU c).
struct CpuPlace {
  int node = 0;
  std::vector<std::uint64_t> cpus;
};

/// Whether more of a node's ranks (`node`: their places) may only run on
/// the CPUs of `place` (their masks within its mask) than it has CPUs: then
/// some of them time-share a core.
bool crowded(std::span<const CpuPlace> node, const CpuPlace& place);

/// Per rank, its pool (the lowest rank of the pool) or -1 when its share
/// is its own. Ranks with identical places are a pool when more ranks of
/// the node may only run on those CPUs (masks within theirs) than the
/// masks hold CPUs. Ranks pinned alone to their cores are no pool; ranks
/// pinned two to a core are one (the same share each, either way).
std::vector<int> share_pools(std::span<const CpuPlace> places);

}  // namespace npblu
