#include "lu/mpi/cpu_places.hpp"

#include <algorithm>
#include <span>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

#include "lu/mpi/communicator.hpp"

namespace npblu {

namespace {
constexpr int kMaskWords = 16;  // 1024 CPUs
}  // namespace

CpuMask own_cpu_mask() {
  CpuMask mask(kMaskWords, 0);
  const auto set_bit = [&](int cpu) {
    if (cpu < 64 * kMaskWords) mask[cpu / 64] |= std::uint64_t{1} << (cpu % 64);
  };
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) set_bit(cpu);
    }
    return mask;
  }
#endif
  const int cores = std::max(1u, std::thread::hardware_concurrency());
  for (int cpu = 0; cpu < cores; ++cpu) set_bit(cpu);
  return mask;
}

NodeCpuMasks node_cpu_masks(MPI_Comm comm) {
  const Communicator world = Communicator::borrow(comm);
  const Communicator node = world.node();  // in `comm`'s rank order
  const CpuMask mine = own_cpu_mask();
  const std::vector<std::uint64_t> all = node.all_gather(std::span<const std::uint64_t>(mine));
  const int rank = world.rank();
  NodeCpuMasks out;
  out.ranks = node.all_gather(std::span<const int>(&rank, 1));
  out.self = node.rank();
  for (int r = 0; r < node.size(); ++r) {
    const auto first = all.begin() + static_cast<std::ptrdiff_t>(r) * kMaskWords;
    out.places.push_back({0, CpuMask(first, first + kMaskWords)});
  }
  return out;
}

bool shares_core_with_peer(MPI_Comm comm) {
  const NodeCpuMasks node = node_cpu_masks(comm);
  return crowded(node.places, node.places[node.self]);
}

}  // namespace npblu
