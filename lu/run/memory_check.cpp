#include "lu/run/memory_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "lu/mpi/communicator.hpp"
#include "lu/run/test_faults.hpp"

namespace npblu {

namespace {

std::optional<std::uint64_t> parse_unsigned(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\t'))
    text.remove_suffix(1);
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

std::optional<std::string> read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string readable(std::uint64_t bytes) {
  if (bytes >= 1'000'000'000'000) return fmt::format("{:.2f} TB", bytes / 1e12);
  if (bytes >= 1'000'000'000) return fmt::format("{:.2f} GB", bytes / 1e9);
  if (bytes >= 1'000'000) return fmt::format("{:.2f} MB", bytes / 1e6);
  return fmt::format("{} bytes", bytes);
}

// What a cgroup hierarchy calls its memory limit and usage: v2 (unified)
// and v1 (the memory controller's own hierarchy, older batch systems).
struct CgroupFiles {
  std::string_view controller;  // "" for v2, whose line in /proc/self/cgroup lists none
  std::string_view limit, usage;
};
const CgroupFiles kCgroupV2{"", "memory.max", "memory.current"};
const CgroupFiles kCgroupV1{"memory", "memory.limit_in_bytes", "memory.usage_in_bytes"};

// The tightest limit of one hierarchy, from this process's cgroup up to the
// root: each level's limit caps everything below it.
std::optional<AvailableMemory> cgroup_limit(std::string_view proc_self_cgroup, std::string_view mounts,
                                            const CgroupFiles& files) {
  const auto path = cgroup_path(proc_self_cgroup, files.controller);
  const auto root = cgroup_mount(mounts, files.controller);
  if (!path || !root) return std::nullopt;
  std::optional<AvailableMemory> tightest;
  for (std::filesystem::path group = *path;; group = group.parent_path()) {
    const std::filesystem::path dir = std::filesystem::path(*root) / group.relative_path();
    const auto limit = read_text(dir / files.limit);
    const auto usage = read_text(dir / files.usage);
    const auto room = limit && usage ? cgroup_headroom(*limit, *usage) : std::nullopt;
    if (room && (!tightest || *room < tightest->bytes))
      tightest = AvailableMemory{*room, "the memory limit of cgroup " + group.string()};
    if (group == group.parent_path()) break;
  }
  return tightest;
}

// Whether `item` is one of the comma-separated `list`.
bool listed_in(std::string_view list, std::string_view item) {
  for (std::size_t c = 0; c <= list.size();) {
    const std::size_t comma = std::min(list.find(',', c), list.size());
    if (list.substr(c, comma - c) == item) return true;
    c = comma + 1;
  }
  return false;
}

void keep_tighter(std::optional<AvailableMemory>& best, std::optional<AvailableMemory> other) {
  if (other && (!best || other->bytes < best->bytes)) best = std::move(other);
}

}  // namespace

std::optional<std::uint64_t> meminfo_available(std::string_view meminfo) {
  constexpr std::string_view key = "MemAvailable:";
  std::istringstream lines{std::string(meminfo)};
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with(key)) continue;
    const std::size_t unit = line.find("kB");
    const auto kib = unit == std::string::npos
                         ? std::nullopt
                         : parse_unsigned(std::string_view(line).substr(key.size(), unit - key.size()));
    return kib ? std::optional<std::uint64_t>(*kib * 1024) : std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> cgroup_headroom(std::string_view max, std::string_view current) {
  const auto limit = parse_unsigned(max);  // "max\n": no limit
  const auto used = parse_unsigned(current);
  if (!limit || !used) return std::nullopt;
  return *used >= *limit ? 0 : *limit - *used;
}

std::optional<std::string> cgroup_path(std::string_view proc_self_cgroup, std::string_view controller) {
  std::istringstream lines{std::string(proc_self_cgroup)};
  for (std::string line; std::getline(lines, line);) {
    // hierarchy-ID:controller-list:path
    const std::size_t first = line.find(':');
    const std::size_t second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos || line.compare(second + 1, 1, "/") != 0) continue;
    const std::string_view list = std::string_view(line).substr(first + 1, second - first - 1);
    if (controller.empty() ? list.empty() : listed_in(list, controller)) return line.substr(second + 1);
  }
  return std::nullopt;
}

std::optional<std::string> cgroup_mount(std::string_view mounts, std::string_view controller) {
  std::istringstream lines{std::string(mounts)};
  std::string device, point, type, options;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    if (!(fields >> device >> point >> type >> options)) continue;
    if (controller.empty() ? type == "cgroup2" : type == "cgroup" && listed_in(options, controller))
      return point;
  }
  return std::nullopt;
}

std::optional<AvailableMemory> available_memory() {
  std::optional<AvailableMemory> best;
  if (const auto meminfo = read_text("/proc/meminfo"))
    if (const auto free = meminfo_available(*meminfo)) best = AvailableMemory{*free, "MemAvailable"};
  const auto self = read_text("/proc/self/cgroup");
  const auto mounts = read_text("/proc/self/mounts");
  if (self && mounts) {
    keep_tighter(best, cgroup_limit(*self, *mounts, kCgroupV2));
    keep_tighter(best, cgroup_limit(*self, *mounts, kCgroupV1));
  }
  return best;
}

std::string memory_shortfall(const std::string& host, int ranks, std::uint64_t needed,
                             const std::optional<AvailableMemory>& available) {
  if (!available || needed <= available->bytes) return "";
  const bool one = ranks == 1;
  return fmt::format(
      "not enough memory on {}: the run's {} rank{} there need{} {} for {} fields and workspaces, "
      "and the node has {} available ({}); use more nodes or fewer ranks per node, or a smaller problem "
      "(--memory-check off runs anyway)",
      host, ranks, one ? "" : "s", one ? "s" : "", readable(needed), one ? "its stripe's" : "their stripes'",
      readable(available->bytes), available->source);
}

NodeMemory node_memory(MPI_Comm comm, std::uint64_t rank_bytes) {
  const Communicator node = Communicator::borrow(comm).node();
  const std::uint64_t needed = node.all_reduce_sum(rank_bytes);
  NodeMemory out;
  // The node's first rank reads the node's memory (the largest value: unknown).
  constexpr std::uint64_t kUnknown = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t room = kUnknown;
  if (node.rank() == 0) {
    char host[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    MPI_Get_processor_name(host, &length);
    const auto forced = test_fault_available_memory();
    const auto available = forced ? AvailableMemory{*forced, "NPBLU_TEST_FAULT"} : available_memory();
    out.shortfall = memory_shortfall("node " + std::string(host, length), node.size(), needed, available);
    if (available) room = available->bytes > needed ? available->bytes - needed : 0;
  }
  room = node.broadcast(room, 0);
  if (room != kUnknown) out.room = room / static_cast<std::uint64_t>(node.size());
  return out;
}

}  // namespace npblu
