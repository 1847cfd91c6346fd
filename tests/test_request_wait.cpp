// How ranks wait for messages: the option values, the automatic choice from
// the rank's core share and its peers, and the library's own yield flag.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <stdexcept>
#include <string_view>

#if defined(__linux__)
#include <sched.h>
#endif

#include "lu/mpi/cpu_places.hpp"
#include "lu/mpi/request_wait.hpp"

namespace npblu {
namespace {

TEST(WaitMode, ParsesTheThreeModesAndRejectsOthers) {
  EXPECT_EQ(parse_wait_mode("spin"), WaitMode::spin);
  EXPECT_EQ(parse_wait_mode("sleep"), WaitMode::sleep);
  EXPECT_EQ(parse_wait_mode("auto"), WaitMode::automatic);
  EXPECT_EQ(to_string(parse_wait_mode("auto")), "auto");
  EXPECT_THROW(parse_wait_mode("yield"), std::invalid_argument);
}

TEST(AutomaticWait, SpinsOnADedicatedCoreAndSleepsOnASharedOne) {
  AutomaticWait w;
  EXPECT_EQ(w.current(), WaitMode::spin);
  EXPECT_EQ(w.update(0.010, 0.0001), WaitMode::spin);  // share 0.99
  EXPECT_EQ(w.update(0.005, 0.005), WaitMode::spin);   // share 0.5 once: a burst of noise
  EXPECT_EQ(w.update(0.010, 0.0001), WaitMode::spin);  // gone
  EXPECT_EQ(w.update(0.005, 0.005), WaitMode::spin);   // 0.5 three times in a row: a shared core
  EXPECT_EQ(w.update(0.005, 0.005), WaitMode::spin);
  EXPECT_EQ(w.update(0.005, 0.005), WaitMode::sleep);
  EXPECT_EQ(w.update(0.009, 0.001), WaitMode::sleep);   // 0.9: inside the gap, stays
  EXPECT_EQ(w.update(0.0, 0.0), WaitMode::sleep);       // nothing measured (no schedstat): no change
  EXPECT_EQ(w.update(0.010, 0.0002), WaitMode::spin);   // 0.98: the core is ours again
  EXPECT_EQ(w.update(0.0085, 0.0015), WaitMode::spin);  // 0.85: inside the gap, stays
}

TEST(AutomaticWait, SpinsOnCoresSharedWithPeersWhenTheLibraryYields) {
  AutomaticWait w(CorePeers::yielding);
  EXPECT_EQ(w.current(), WaitMode::spin);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(w.update(0.001, 0.009), WaitMode::spin);
}

TEST(AutomaticWait, SleepsOnCoresSharedWithPeersWhenTheLibrarySpins) {
  AutomaticWait w(CorePeers::spinning);
  EXPECT_EQ(w.current(), WaitMode::sleep);              // from the first message on
  EXPECT_EQ(w.update(0.010, 0.0001), WaitMode::sleep);  // a full share now and then changes nothing
  for (int i = 0; i < 5; ++i) EXPECT_EQ(w.update(0.001, 0.009), WaitMode::sleep);
}

// Run twice by ctest: as a unit test (no setting: Open MPI yields only on an
// oversubscribed node, which a single process is not) and with Open MPI told
// to yield (OMPI_MCA_mpi_yield_when_idle=1, tests/cmake/...): the flag read
// through MPI_T must be the library's. Other libraries have no such flag.
TEST(MpiYield, TheLibrarysOwnFlagIsRead) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  const bool open_mpi = std::string_view(version, length).find("Open MPI") != std::string_view::npos;
  const char* forced = std::getenv("OMPI_MCA_mpi_yield_when_idle");
  const bool expected = open_mpi && forced != nullptr && std::string_view(forced) == "1";
  EXPECT_EQ(mpi_yields_while_polling(), expected) << version;
  EXPECT_EQ(core_peers(MPI_COMM_SELF), CorePeers::none);
}

TEST(AutomaticWait, ASingleRankSharesItsCoresWithNoPeer) {
  EXPECT_FALSE(shares_core_with_peer(MPI_COMM_SELF));
}

#if defined(__linux__)
// The masks are read once per communicator and kept with it: the solver and
// the balancer both ask at start-up, and each gather is collective. Shown by
// narrowing this process's own mask between two asks: the same communicator
// still answers with the first mask, a new one (a dup: the cache is not
// copied) with the narrowed one.
TEST(NodeCpuMasks, AreGatheredOncePerCommunicator) {
  cpu_set_t before;
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  if (CPU_COUNT(&before) < 2) GTEST_SKIP() << "one CPU: no narrower mask";
  MPI_Comm first = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_SELF, &first);
  const NodeCpuMasks gathered = node_cpu_masks(first);
  ASSERT_EQ(gathered.places.size(), 1u);
  cpu_set_t one;
  CPU_ZERO(&one);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &before)) {
      CPU_SET(cpu, &one);
      break;
    }
  }
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  MPI_Comm second = MPI_COMM_NULL;
  MPI_Comm_dup(first, &second);
  const NodeCpuMasks again = node_cpu_masks(first);
  const NodeCpuMasks fresh = node_cpu_masks(second);
  const CpuMask narrowed = own_cpu_mask();
  sched_setaffinity(0, sizeof before, &before);
  EXPECT_EQ(again.places[0].cpus, gathered.places[0].cpus);
  EXPECT_NE(fresh.places[0].cpus, gathered.places[0].cpus);
  EXPECT_EQ(fresh.places[0].cpus, narrowed);
  MPI_Comm_free(&second);
  MPI_Comm_free(&first);
}
#endif

TEST(RequestWait, SleepingWaitCompletesARequest) {
  // A message to ourselves on MPI_COMM_SELF, waited for in each mode.
  for (WaitMode mode : {WaitMode::spin, WaitMode::sleep, WaitMode::automatic}) {
    double sent = 42.0, received = 0.0;
    MPI_Request reqs[2];
    MPI_Irecv(&received, 1, MPI_DOUBLE, 0, 7, MPI_COMM_SELF, &reqs[0]);
    MPI_Isend(&sent, 1, MPI_DOUBLE, 0, 7, MPI_COMM_SELF, &reqs[1]);
    wait_for(reqs[0], mode);
    EXPECT_EQ(received, 42.0);
    wait_for_all(1, &reqs[1], mode);
    EXPECT_EQ(reqs[1], MPI_REQUEST_NULL);
  }
}

}  // namespace
}  // namespace npblu
