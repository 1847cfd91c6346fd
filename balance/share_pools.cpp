#include "balance/share_pools.hpp"

#include <algorithm>
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

// The pools among the ranks of one node: `here` their places, `ranks`
// their ranks (ascending).
void pools_of_node(std::span<const CpuPlace> here, const std::vector<int>& ranks, std::vector<int>& pool) {
  for (std::size_t i = 0; i < here.size(); ++i) {
    if (pool[ranks[i]] != -1 || !crowded(here, here[i])) continue;  // in a lower rank's pool, or room enough
    const auto alike = [&](const CpuPlace& p) { return same_cpus(p, here[i]); };
    if (std::count_if(here.begin(), here.end(), alike) < 2) continue;
    for (std::size_t j = i; j < here.size(); ++j)
      if (alike(here[j])) pool[ranks[j]] = ranks[i];
  }
}
}  // namespace

bool crowded(std::span<const CpuPlace> node, const CpuPlace& place) {
  int cpus = 0;
  for (const std::uint64_t word : place.cpus) cpus += std::popcount(word);
  const auto confined =
      std::count_if(node.begin(), node.end(), [&](const CpuPlace& p) { return within(p.cpus, place.cpus); });
  return confined > cpus;
}

std::vector<int> share_pools(std::span<const CpuPlace> places) {
  std::map<int, std::vector<int>> by_node;  // ranks per node, in rank order
  for (int r = 0; r < static_cast<int>(places.size()); ++r) by_node[places[r].node].push_back(r);
  std::vector<int> pool(places.size(), -1);
  for (const auto& [node, ranks] : by_node) {
    std::vector<CpuPlace> here;
    here.reserve(ranks.size());
    for (const int r : ranks) here.push_back(places[r]);
    pools_of_node(here, ranks, pool);
  }
  return pool;
}

}  // namespace npblu
