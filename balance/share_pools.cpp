#include "balance/share_pools.hpp"

#include <bit>
#include <cstddef>
#include <map>

namespace npblu {

namespace {
// Whether every CPU of `inner` is in `outer` (missing words are empty).
bool within(const std::vector<std::uint64_t>& inner, const std::vector<std::uint64_t>& outer) {
  for (std::size_t w = 0; w < inner.size(); ++w) {
    const std::uint64_t o = w < outer.size() ? outer[w] : 0;
    if ((inner[w] & ~o) != 0) return false;
  }
  return true;
}

bool same_cpus(const CpuPlace& a, const CpuPlace& b) {
  return within(a.cpus, b.cpus) && within(b.cpus, a.cpus);
}

// The pools among the ranks of one node (`on_node`, in rank order).
void pools_of_node(std::span<const CpuPlace> places, const std::vector<int>& on_node,
                   std::vector<int>& pool) {
  for (std::size_t i = 0; i < on_node.size(); ++i) {
    const int r = on_node[i];
    if (pool[r] != -1) continue;  // already in a lower rank's pool
    int cpus = 0, confined = 0, members = 0;
    for (const std::uint64_t word : places[r].cpus) cpus += std::popcount(word);
    for (const int q : on_node) {
      confined += within(places[q].cpus, places[r].cpus) ? 1 : 0;
      members += same_cpus(places[q], places[r]) ? 1 : 0;
    }
    if (confined <= cpus || members < 2) continue;
    for (std::size_t j = i; j < on_node.size(); ++j)
      if (same_cpus(places[on_node[j]], places[r])) pool[on_node[j]] = r;
  }
}
}  // namespace

std::vector<int> share_pools(std::span<const CpuPlace> places) {
  std::map<int, std::vector<int>> by_node;  // ranks per node, in rank order
  for (int r = 0; r < static_cast<int>(places.size()); ++r) by_node[places[r].node].push_back(r);
  std::vector<int> pool(places.size(), -1);
  for (const auto& [node, on_node] : by_node) pools_of_node(places, on_node, pool);
  return pool;
}

}  // namespace npblu
