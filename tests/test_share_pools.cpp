#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "balance/share_pools.hpp"

using namespace npblu;

namespace {
// A place on `node` allowed on `cpus`.
CpuPlace on(int node, std::vector<int> cpus) {
  CpuPlace p{node, std::vector<std::uint64_t>(2, 0)};
  for (const int c : cpus) p.cpus[c / 64] |= std::uint64_t{1} << (c % 64);
  return p;
}
}  // namespace

TEST(SharePools, UnpinnedRanksBeyondTheCoresAreOnePool) {
  // mpirun --oversubscribe -np 3 on 2 cores: every rank may run anywhere.
  EXPECT_EQ(share_pools(std::vector{on(0, {0, 1}), on(0, {0, 1}), on(0, {0, 1})}),
            (std::vector<int>{0, 0, 0}));
  // As many ranks as cores: each can have one; their shares are their own.
  EXPECT_EQ(share_pools(std::vector{on(0, {0, 1}), on(0, {0, 1})}), (std::vector<int>{-1, -1}));
}

TEST(SharePools, PinnedRanksPoolOnlyWhereTheyShareACore) {
  EXPECT_EQ(share_pools(std::vector{on(0, {0}), on(0, {1}), on(0, {1})}), (std::vector<int>{-1, 1, 1}));
  EXPECT_EQ(share_pools(std::vector{on(0, {0}), on(0, {1}), on(0, {0})}), (std::vector<int>{0, -1, 0}));
  EXPECT_EQ(share_pools(std::vector{on(0, {0}), on(0, {1}), on(0, {2})}), (std::vector<int>{-1, -1, -1}));
  EXPECT_EQ(share_pools(std::vector{on(0, {64}), on(0, {64})}), (std::vector<int>{0, 0}));  // beyond word 0
}

TEST(SharePools, NodesArePooledApart) {
  // The same CPU numbers on two nodes are other cores.
  const std::vector places{on(0, {0, 1}), on(0, {0, 1}), on(1, {0, 1}),
                           on(1, {0, 1}), on(1, {0, 1}), on(0, {0, 1})};
  EXPECT_EQ(share_pools(places), (std::vector<int>{0, 0, 2, 2, 2, 0}));
  EXPECT_EQ(share_pools(std::vector{on(0, {0}), on(1, {0})}), (std::vector<int>{-1, -1}));
}

TEST(SharePools, RanksConfinedWithinAMaskCrowdIt) {
  // Ranks 0 and 1 may run on cores 0 and 1, rank 2 only on core 1: three
  // ranks compete for the two cores, and the two alike are placed by the
  // scheduler; rank 2 is no member (its place differs).
  EXPECT_EQ(share_pools(std::vector{on(0, {0, 1}), on(0, {0, 1}), on(0, {1})}), (std::vector<int>{0, 0, -1}));
}

TEST(SharePools, CrowdedWhenMoreRanksAreConfinedToTheCpusThanTheyHold) {
  // The rule shares_core_with_peer (lu/mpi/cpu_places) and the pools both use.
  const std::vector node{on(0, {0, 1}), on(0, {0, 1}), on(0, {1})};
  EXPECT_TRUE(crowded(node, node[0]));   // 3 ranks may only run on CPUs 0 and 1
  EXPECT_FALSE(crowded(node, node[2]));  // only rank 2 is confined to CPU 1
  EXPECT_FALSE(crowded(std::vector{on(0, {0, 1}), on(0, {0, 1})}, on(0, {0, 1})));
  EXPECT_TRUE(crowded(std::vector{on(0, {1}), on(0, {1})}, on(0, {1})));
}
