#include "lu/mpi/cpu_places.hpp"

#include <algorithm>
#include <memory>
#include <span>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

#include "lu/mpi/communicator.hpp"

namespace npblu {

namespace {
constexpr int kMaskWords = 16;  // 1024 CPUs

int delete_cached_masks(MPI_Comm, int, void* value, void*) {
  delete static_cast<NodeCpuMasks*>(value);
  return MPI_SUCCESS;
}

// The key under which a communicator keeps its gathered masks (MPI's
// attribute caching: freed with the communicator, not copied by a dup).
int cached_masks_key() {
  static const int key = [] {
    int k = MPI_KEYVAL_INVALID;
    check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_cached_masks, &k, nullptr),
              "MPI_Comm_create_keyval");
    return k;
  }();
  return key;
}

NodeCpuMasks gather_node_cpu_masks(MPI_Comm comm) {
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
  // Every rank asks in the same order on the same communicator, so either
  // all find the cache or none does and all gather: the call stays
  // collective where it has to be.
  void* cached = nullptr;
  int found = 0;
  check_mpi(MPI_Comm_get_attr(comm, cached_masks_key(), &cached, &found), "MPI_Comm_get_attr");
  if (found) return *static_cast<const NodeCpuMasks*>(cached);
  auto gathered = std::make_unique<NodeCpuMasks>(gather_node_cpu_masks(comm));
  const NodeCpuMasks masks = *gathered;
  check_mpi(MPI_Comm_set_attr(comm, cached_masks_key(), gathered.get()), "MPI_Comm_set_attr");
  gathered.release();  // the communicator owns it now (delete_cached_masks)
  return masks;
}

bool shares_core_with_peer(MPI_Comm comm) {
  const NodeCpuMasks node = node_cpu_masks(comm);
  return crowded(node.places, node.places[node.self]);
}

}  // namespace npblu
