// MPI integration test: collectives that wait as the rank waits.
//
//   mpiexec -n P collective_wait        (P >= 2)
//
// Rank 0 waits by spinning, every other rank by sleeping between polls (as
// `--wait auto` may decide per rank), in the same collectives: the typed
// collectives with a WaitMode (all-reduce, all-gather, gather), the agreement
// on errors, and the migration's messages. Checks, on every rank:
//  - the values are right and ranks that wait differently still pair (a
//    collective given a wait mode must run the same MPI call whatever the mode);
//  - a sleeping rank leaves its core: while rank 0 keeps the others waiting
//    for 0.4 s, each sleeping rank's thread uses under half of that
//    time on a core (spinning uses all it gets: each rank's share spinning
//    is printed for comparison).
// Exit 0 on pass, 1 on failure, on every rank (agreed).
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "balance/partition.hpp"
#include "lu/mpi/agreement.hpp"
#include "lu/mpi/column_mover.hpp"
#include "lu/mpi/communicator.hpp"

namespace {

using namespace npblu;

int failures = 0;

void check(bool ok, const std::string& what, int rank) {
  if (ok) return;
  std::fprintf(stderr, "collective_wait: rank %d: %s\n", rank, what.c_str());
  ++failures;
}

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

void check_values(const Communicator& c, WaitMode wait) {
  const int r = c.rank(), p = c.size();
  check(c.all_reduce_max(r, wait) == p - 1, "all_reduce_max", r);
  check(c.all_reduce_min(10.0 + r, wait) == 10.0, "all_reduce_min", r);
  check(c.all_reduce_sum(r + 1, wait) == p * (p + 1) / 2, "all_reduce_sum", r);
  const std::vector<double> mine{double(r), -double(r)};
  const std::vector<double> all = c.all_gather(std::span<const double>(mine), wait);
  for (int q = 0; q < p; ++q)
    check(all[2 * q] == q && all[2 * q + 1] == -q, "all_gather of rank " + std::to_string(q), r);
  const std::vector<double> at_last = c.gather_each(std::span<const double>(mine), p - 1, wait);
  check(at_last.size() == (r == p - 1 ? all.size() : 0u) && (r != p - 1 || at_last == all), "gather_each", r);
  std::string agreed;
  const bool failed = first_failure(r != 1, "rank 1 fails", c.get(), agreed, wait);
  check(failed && agreed == "rank 1 fails", "first_failure agreed '" + agreed + "'", r);
  check(!first_failure(true, "", c.get(), agreed, wait), "first_failure with no failure", r);
}

/// Every rank hands its first column on to the next rank (the last to rank
/// 0's side is not moved): 2 columns a rank, the values follow their column.
void check_migration(const Communicator& c, WaitMode wait) {
  const int r = c.rank(), p = c.size();
  const ColumnRange all{0, 2 * p};
  const Partition from = Partition::equal(all, p, 1);
  std::vector<int> widths(p, 2);
  widths[0] = 3;
  widths[p - 1] = 1;
  const Partition to = Partition::from_widths(all, widths, 1);
  std::vector<double> old_cols(from[r].width()), new_cols(to[r].width(), -1.0);
  for (int j = from[r].begin; j < from[r].end; ++j) old_cols[j - from[r].begin] = 100.0 + j;
  const MovedArray a{reinterpret_cast<const std::byte*>(old_cols.data()), from[r],
                     reinterpret_cast<std::byte*>(new_cols.data()), to[r], sizeof(double)};
  move_columns({&a, 1}, from, to, c, 7, wait);
  for (int j = to[r].begin; j < to[r].end; ++j)
    check(new_cols[j - to[r].begin] == 100.0 + j, "migrated column " + std::to_string(j), r);
}

/// Rank 0 joins an all-reduce 0.4 s late; returns this rank's thread CPU
/// seconds over its wall seconds in it.
double share_of_core_while_waiting(const Communicator& c, WaitMode wait) {
  c.barrier();
  const double cpu0 = thread_cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  if (c.rank() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(400));
  (void)c.all_reduce_max(1, wait);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return (thread_cpu_seconds() - cpu0) / wall;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    const Communicator c = Communicator::borrow(MPI_COMM_WORLD);
    const WaitMode wait = c.rank() == 0 ? WaitMode::spin : WaitMode::sleep;
    if (c.size() < 2) {
      std::fprintf(stderr, "collective_wait: needs at least 2 ranks\n");
      ++failures;
    } else {
      for (int round = 0; round < 20; ++round) check_values(c, wait);
      check_migration(c, wait);
      const double share = share_of_core_while_waiting(c, wait);
      // For comparison (not checked: a spinning rank gets what the scheduler gives it).
      const double spinning = share_of_core_while_waiting(c, WaitMode::spin);
      if (c.rank() != 0) {
        std::printf("rank %d used %.3f of its wait on a core sleeping, %.3f spinning\n", c.rank(), share,
                    spinning);
        check(share < 0.5, "a sleeping rank used " + std::to_string(share) + " of its wait on a core",
              c.rank());
      }
    }
    failures = c.all_reduce_sum(failures);
    if (c.rank() == 0) std::printf("collective_wait: %s\n", failures == 0 ? "pass" : "FAIL");
  }
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
