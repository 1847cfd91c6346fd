// MPI integration test: column migration over several hops.
//
//   mpiexec -n P random_migration CLASS EVERY SEED
//
// Runs NPB LU class CLASS on P ranks and, every EVERY timed iterations,
// repartitions to a new random partition (the same pseudo-random sequence on
// every rank, minimum width 2). Two steps in three are extreme partitions that
// give almost everything to the last, then the first rank, so that stripes
// jump to ranges disjoint from their old ones and columns travel P-1 hops in
// one migration. The run must verify against the class's reference values and end
// with the field_checksum of the same class on one rank (computed first by
// rank 0 alone on a communicator of its own). Exit 0 on pass, 1 on failure,
// 2 on bad arguments, on every rank.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "balance/partition.hpp"
#include "lu/mpi/mpi_program.hpp"
#include "lu/solver.hpp"
#include "verify/class_table.hpp"
#include "verify/verification.hpp"

namespace {

using namespace npblu;

/// splitmix64: a fixed, portable sequence (std distributions are not
/// specified bit for bit across standard libraries).
struct SeededSequence {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
};

/// A random partition of `interior` over `ranks` stripes of at least the
/// minimum width. Steps cycle through: nearly everything to the last rank,
/// then nearly everything to the first (so the top columns travel ranks-1
/// hops and the middle stripes jump to disjoint ranges), then uniform random.
Partition random_partition(ColumnRange interior, int ranks, int step, SeededSequence& rng) {
  const int spare = interior.width() - kMinimumColumnWidth * ranks;
  std::vector<int> widths(ranks, kMinimumColumnWidth);
  if (step % 3 != 2) {
    // Everything spare to one end rank, perhaps one column to a middle rank.
    const int end_rank = step % 3 == 0 ? ranks - 1 : 0;
    const int elsewhere = rng.below(2);
    widths[end_rank] += spare - elsewhere;
    widths[1 + rng.below(ranks - 2)] += elsewhere;
  } else {
    for (int c = 0; c < spare; ++c) widths[rng.below(ranks)] += 1;
  }
  return Partition::from_widths(interior, widths);
}

struct MigrationStats {
  int steps = 0;
  int disjoint = 0;  // steps where some rank's old and new ranges do not overlap
  int max_hops = 0;  // largest |new owner - old owner| of any column
};

void count(const Partition& from, const Partition& to, MigrationStats& s) {
  ++s.steps;
  bool disjoint = false;
  for (int r = 0; r < from.ranks(); ++r) {
    const ColumnRange a = from[r], b = to[r];
    disjoint = disjoint || a.end <= b.begin || b.end <= a.begin;
  }
  s.disjoint += disjoint ? 1 : 0;
  for (int j = from.interior().begin; j < from.interior().end; ++j) {
    s.max_hops = std::max(s.max_hops, std::abs(to.owner_of(j) - from.owner_of(j)));
  }
}

SolverConfig config_for(const ProblemClass& pc) {
  SolverConfig c;
  c.grid = {pc.n, pc.n, pc.n};
  c.iterations = pc.itmax;
  c.dt = pc.dt;
  return c;
}

int run(int argc, char** argv, int rank, int ranks) {
  if (argc != 4) {
    if (rank == 0) std::fprintf(stderr, "usage: random_migration CLASS EVERY SEED\n");
    return 2;
  }
  const std::optional<ProblemClass> pc = find_problem_class(argv[1][0]);
  const int every = std::atoi(argv[2]);
  const std::uint64_t seed = std::strtoull(argv[3], nullptr, 10);
  const SolverConfig config = pc ? config_for(*pc) : SolverConfig{};
  const ColumnRange interior = config.grid.interior_columns();
  if (!pc || every < 1 || ranks < 3 || ranks > Partition::max_ranks(interior) ||
      interior.width() < kMinimumColumnWidth * ranks + 1) {
    if (rank == 0) std::fprintf(stderr, "random_migration: bad class, period or rank count (3 or more)\n");
    return 2;
  }

  // The 1-rank reference, on rank 0 alone.
  std::string reference_checksum;
  MPI_Comm alone = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &alone);
  if (alone != MPI_COMM_NULL) {
    LuSolver single(alone, config, Partition::equal(interior, 1));
    single.run();
    reference_checksum = single.checksum();
    MPI_Comm_free(&alone);
  }

  LuSolver solver(MPI_COMM_WORLD, config, Partition::equal(interior, ranks));
  SeededSequence rng{seed};
  MigrationStats stats;
  solver.set_rebalance([&](int iteration, auto) {
    if (iteration % every != 0) return false;
    Partition next = random_partition(interior, ranks, iteration / every, rng);
    count(solver.partition(), next, stats);
    if (next != solver.partition()) solver.repartition(next);
    return true;
  });
  const SolveResult result = solver.run();
  const std::string checksum = solver.checksum();

  int failed = 0;
  if (rank == 0) {
    const VerificationResult v =
        verify({result.residual_norms, result.error_norms, result.surface_integral}, pc->reference);
    std::printf(
        "class %c on %d ranks, a random partition every %d iterations (seed %llu): %d migrations, "
        "%d with disjoint old/new ranges, columns moved up to %d hops; final columns %s\n",
        pc->name, ranks, every, static_cast<unsigned long long>(seed), stats.steps, stats.disjoint,
        stats.max_hops, solver.partition().to_string().c_str());
    std::printf("field checksum %s, 1-rank reference %s; verification %s\n", checksum.c_str(),
                reference_checksum.c_str(), v.passed ? "SUCCESSFUL" : "UNSUCCESSFUL");
    if (!v.passed) failed = 1, std::printf("FAIL: the run did not verify\n");
    if (checksum != reference_checksum)
      failed = 1, std::printf("FAIL: the field differs from the 1-rank run\n");
    // With fewer spare columns than ranks (class S on 4 ranks) no column can
    // go further than the next stripe; otherwise the end-to-end steps move
    // the top columns from the last rank to the first.
    const int spare = interior.width() - kMinimumColumnWidth * ranks;
    const int hops = spare >= ranks ? ranks - 1 : 1;
    if (stats.disjoint < 1 || stats.max_hops < hops) {
      failed = 1, std::printf("FAIL: no migration moved columns across %d hops to a disjoint range\n", hops);
    }
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0 && !failed) std::printf("PASS\n");
  return failed;
}

}  // namespace

int main(int argc, char** argv) { return npblu::run_mpi_program("random_migration", argc, argv, run); }
