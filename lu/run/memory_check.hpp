#pragma once
// Whether a run's stripes fit in memory, checked before any field is
// allocated. The fields are mapped lazily (Linux overcommits), so a run that
// does not fit would otherwise start, and be killed by the kernel part-way
// through on some rank, with no message and a hung or aborted job. Each node
// adds up what its ranks will store (LuSolver::resident_bytes) and compares
// it with what the node can still give: MemAvailable, or less under a cgroup
// memory limit, v2 or v1 (a batch job's or a container's).
#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace npblu {

/// MemAvailable from the text of /proc/meminfo, in bytes (none if absent).
std::optional<std::uint64_t> meminfo_available(std::string_view meminfo);

/// The room left under a cgroup memory limit, in bytes, from the texts of its
/// limit and usage (v2: memory.max, memory.current; v1: memory.limit_in_bytes,
/// memory.usage_in_bytes); none when unlimited ("max") or unreadable.
std::optional<std::uint64_t> cgroup_headroom(std::string_view max, std::string_view current);

/// This process's cgroup path ("/job/step") from the text of
/// /proc/self/cgroup: in the hierarchy of `controller` ("memory": cgroup
/// v1), or with "" the unified one (v2, its "0::" line); none if absent.
std::optional<std::string> cgroup_path(std::string_view proc_self_cgroup, std::string_view controller);

/// Where the hierarchy of `controller` ("memory": v1; "": v2) is mounted,
/// from the text of /proc/self/mounts; none if it is not.
std::optional<std::string> cgroup_mount(std::string_view mounts, std::string_view controller);

/// What this process may still use: the bytes and where that figure comes from.
struct AvailableMemory {
  std::uint64_t bytes = 0;
  std::string source;  // "MemAvailable" or "the memory limit of cgroup /path"
};

/// This node's available memory: MemAvailable, lowered to the tightest
/// cgroup limit (v2 or v1) above this process; none where unknown (not Linux).
std::optional<AvailableMemory> available_memory();

/// The refusal when ranks that need `needed` bytes together on node `host`
/// have `available`; "" when they fit.
std::string memory_shortfall(const std::string& host, int ranks, std::uint64_t needed,
                             const std::optional<AvailableMemory>& available);

/// What a node's memory says about its ranks' stripes.
struct NodeMemory {
  std::string shortfall;  // on the node's first rank, its memory_shortfall ("" elsewhere and when they fit)
  // This rank's share of what the node has left once every rank there holds
  // its stripe (the room divided evenly among them): what its stripe may
  // grow by when the balancer moves columns. None where the node's memory is
  // unknown; 0 when the stripes do not fit.
  std::optional<std::uint64_t> room;
};

/// Collective over `comm`: each node adds up its ranks' `rank_bytes` and
/// compares them with its available memory (or NPBLU_TEST_FAULT's).
NodeMemory node_memory(MPI_Comm comm, std::uint64_t rank_bytes);

}  // namespace npblu
