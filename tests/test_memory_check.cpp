// The memory check before a run allocates (lu/run/memory_check.hpp): what a
// rank will store, what a node has available, and the refusal's text.
#include <gtest/gtest.h>
#include <mpi.h>

#include "lu/residual.hpp"
#include "lu/run/memory_check.hpp"
#include "lu/solver.hpp"
#include "lu/sweeps.hpp"

using namespace npblu;

namespace {

std::uint64_t workspace_bytes(const GridSize& g) {
  return (SweepWorkspace::doubles(g) + ResidualWorkspace::doubles(g)) * sizeof(double);
}

}  // namespace

TEST(MemoryCheck, ResidentBytesAreWhatTheSolverStores) {
  const GridSize g{12, 17, 10};
  SolverConfig config;
  config.grid = g;
  config.iterations = 2;
  config.dt = 0.5;
  LuSolver solver(MPI_COMM_SELF, config, Partition::equal(g.interior_columns(), 1));
  solver.start();
  const std::uint64_t fields =
      (solver.state().size() + solver.residual().size() + solver.forcing().size()) * sizeof(double);
  EXPECT_EQ(LuSolver::resident_bytes(g, g.interior_columns()), fields + workspace_bytes(g));
}

TEST(MemoryCheck, ResidentBytesCountEachFieldsHalo) {
  // A middle stripe of 4 columns: u with 2 halo columns a side, rsd with 1, frct none.
  const GridSize g{12, 17, 10};
  const std::uint64_t column = 12 * 10 * 5 * sizeof(double);
  EXPECT_EQ(LuSolver::resident_bytes(g, {6, 10}), (8 + 6 + 4) * column + workspace_bytes(g));
  // At the grid's edge the halos are clipped to the grid: columns 0..2 hold u [0, 5), rsd [0, 4), frct [1,
  // 3).
  EXPECT_EQ(LuSolver::resident_bytes(g, {1, 3}), (5 + 4 + 2) * column + workspace_bytes(g));
}

TEST(MemoryCheck, ResidentBytesOfAStripeNearAnIntsRange) {
  // 1431655767 columns on one rank: the three fields' widths sum beyond an
  // int (they once wrapped, and the check let a 6 TB run through as 44 kB).
  const GridSize g{6, 1431655769, 6};
  const std::uint64_t column = 6 * 6 * 5 * sizeof(double);
  const std::uint64_t owned = 1431655767;
  EXPECT_EQ(LuSolver::resident_bytes(g, g.interior_columns()),
            3 * owned * column + 4 * column + workspace_bytes(g));
}

TEST(MemoryCheck, WidestStripeFitsTheRoom) {
  // A stripe grown by d columns stores 3 d more columns of the fields, each
  // field may keep 2 headrooms of spare columns (2 each at these widths:
  // 12 in all), and where the fields cannot grow in place u (width + d + 4
  // columns) exists twice while it moves.
  const GridSize g{12, 33, 10};
  const std::uint64_t column = 12 * 10 * 5 * sizeof(double);
  const ColumnRange owned{8, 16};  // 8 columns in the middle: every halo stored
  EXPECT_EQ(LuSolver::widest_stripe(g, owned, 0, true), 8);
  EXPECT_EQ(LuSolver::widest_stripe(g, owned, 15 * column - 1, true), 8);  // 3 + 12 for the first column
  EXPECT_EQ(LuSolver::widest_stripe(g, owned, 15 * column, true), 9);
  EXPECT_EQ(LuSolver::widest_stripe(g, owned, 42 * column, true), 18);
  EXPECT_EQ(LuSolver::widest_stripe(g, owned, 1000 * column, true), 31);    // no more than the interior
  EXPECT_EQ(LuSolver::widest_stripe(g, owned, 28 * column - 1, false), 8);  // 3 + 12 + 13 (u at 9 + 4)
  EXPECT_EQ(LuSolver::widest_stripe(g, owned, 28 * column, false), 9);
  EXPECT_EQ(LuSolver::widest_stripe(g, owned, 64 * column, false), 18);  // 30 + 12 + 22
  for (const bool in_place : {true, false}) {
    for (std::uint64_t room = 0; room < 200 * column; room += column / 3) {
      const int widest = LuSolver::widest_stripe(g, owned, room, in_place);
      // (Nothing grows; or the stripe reaches the grid's edge, where halos are clipped.)
      if (widest == owned.width() || owned.begin + widest + 1 + 2 > g.ny) continue;
      const ColumnRange grown{owned.begin, owned.begin + widest};
      const std::uint64_t spare = 3 * 2 * std::uint64_t(Field5::headroom(widest + 4)) * column;
      const std::uint64_t copy_of_u = in_place ? 0 : std::uint64_t(widest + 4) * column;
      EXPECT_LE(LuSolver::resident_bytes(g, grown) + spare + copy_of_u,
                LuSolver::resident_bytes(g, owned) + room)
          << room;
      // and one column more would not fit
      const ColumnRange wider{owned.begin, owned.begin + widest + 1};
      const std::uint64_t more = 3 * 2 * std::uint64_t(Field5::headroom(widest + 5)) * column +
                                 (in_place ? 0 : std::uint64_t(widest + 5) * column);
      EXPECT_GT(LuSolver::resident_bytes(g, wider) + more, LuSolver::resident_bytes(g, owned) + room) << room;
    }
  }
}

TEST(MemoryCheck, ReadsMemAvailable) {
  const char* meminfo =
      "MemTotal:       24563220 kB\nMemFree:        23001064 kB\nMemAvailable:   22876540 kB\n"
      "Buffers:            2108 kB\n";
  EXPECT_EQ(meminfo_available(meminfo), std::uint64_t(22876540) * 1024);
  EXPECT_EQ(meminfo_available("MemTotal: 100 kB\nMemFree: 50 kB\n"), std::nullopt);
  EXPECT_EQ(meminfo_available("MemAvailable: lots kB\n"), std::nullopt);
  EXPECT_EQ(meminfo_available(""), std::nullopt);
}

TEST(MemoryCheck, ReadsACgroupsHeadroom) {
  EXPECT_EQ(cgroup_headroom("8589934592\n", "1073741824\n"), std::uint64_t(7516192768));
  EXPECT_EQ(cgroup_headroom("max\n", "1073741824\n"), std::nullopt);  // no limit
  EXPECT_EQ(cgroup_headroom("1000\n", "1200\n"), std::uint64_t(0));   // over it already
  EXPECT_EQ(cgroup_headroom("", "5"), std::nullopt);
  // cgroup v1's "unlimited" is a huge number: room far beyond any MemAvailable.
  EXPECT_EQ(cgroup_headroom("9223372036854771712\n", "1396932608\n"), std::uint64_t(9223372035457839104));
}

TEST(MemoryCheck, FindsThisProcesssCgroups) {
  EXPECT_EQ(cgroup_path("0::/system.slice/slurmstepd.scope/job_42/step_0\n", ""),
            "/system.slice/slurmstepd.scope/job_42/step_0");
  EXPECT_EQ(cgroup_path("0::/system.slice/x\n", "memory"), std::nullopt);  // v2 only
  // A hybrid machine (this VM's): v1 controllers, and the unified line at the root.
  const char* hybrid = "9:name=systemd:/\n4:memory:/process_api/412e\n3:cpuset:/\n1:cpu,cpuacct:/\n0::/\n";
  EXPECT_EQ(cgroup_path(hybrid, "memory"), "/process_api/412e");
  EXPECT_EQ(cgroup_path(hybrid, ""), "/");
  EXPECT_EQ(cgroup_path("6:cpu,memory,pids:/slurm/uid_1000/job_7\n", "memory"), "/slurm/uid_1000/job_7");
  EXPECT_EQ(cgroup_path("6:cpu,memoryx:/a\n5:xmemory:/b\n", "memory"), std::nullopt);
  EXPECT_EQ(cgroup_path("12:memory:/user/1000\n", ""), std::nullopt);  // no unified line
}

TEST(MemoryCheck, FindsTheHierarchiesMounts) {
  // A hybrid machine (this VM's): v1 controllers each mounted, v2 without controllers at unified/.
  const char* hybrid =
      "tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0\n"
      "cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n"
      "cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0\n"
      "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n";
  EXPECT_EQ(cgroup_mount(hybrid, "memory"), "/sys/fs/cgroup/memory");
  EXPECT_EQ(cgroup_mount(hybrid, ""), "/sys/fs/cgroup/unified");
  const char* unified = "proc /proc proc rw 0 0\ncgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nsdelegate 0 0\n";
  EXPECT_EQ(cgroup_mount(unified, ""), "/sys/fs/cgroup");
  EXPECT_EQ(cgroup_mount(unified, "memory"), std::nullopt);
  EXPECT_EQ(cgroup_mount("cgroup /c cgroup rw,cpu,memoryx 0 0\n", "memory"), std::nullopt);
  EXPECT_EQ(cgroup_mount("cgroup /c cgroup rw,cpuacct,memory,pids 0 0\n", "memory"), "/c");
}

TEST(MemoryCheck, RefusesOnlyWhatDoesNotFit) {
  const AvailableMemory node{16'620'000'000, "MemAvailable"};
  EXPECT_EQ(memory_shortfall("node a", 2, 16'620'000'000, node), "");
  EXPECT_EQ(memory_shortfall("node a", 2, 127'520'000'000, std::nullopt), "");  // unknown: not refused
  const std::string two = memory_shortfall("node a", 2, 127'520'000'000, node);
  EXPECT_NE(two.find("not enough memory on node a: the run's 2 ranks there need 127.52 GB for their "
                     "stripes' fields and workspaces, and the node has 16.62 GB available (MemAvailable)"),
            std::string::npos)
      << two;
  EXPECT_NE(two.find("--memory-check off"), std::string::npos);
  const std::string one =
      memory_shortfall("node b", 1, 2'500'000, {{1000, "the memory limit of cgroup /job"}});
  EXPECT_NE(one.find("the run's 1 rank there needs 2.50 MB for its stripe's fields and workspaces, and the "
                     "node has 1000 bytes available (the memory limit of cgroup /job)"),
            std::string::npos)
      << one;
}
