// The price of column migration in the solver (runs/, not a test).
//
//   mpiexec -n P bench_migration CLASS REPEATS STEP1 STEP2 ...
//
// Runs NPB LU class CLASS on equal stripes (rebalancing enabled, as with
// --balance diffusive, but the hook never moves anything itself), then for
// each STEP c: timed iteration, repartition moving c columns from rank 1 to
// rank 0 (c < 0: back; fewer where a stripe would fall below the minimum
// width), timed iteration; the whole list REPEATS times. A
// repartition is timed from a barrier to the last rank done (max over ranks),
// so it holds the migration only, no balancing decision and no wait for a
// slower rank. Prints one JSON object on rank 0: the median iteration and
// every step's seconds, in order. Uses only LuSolver's public interface, so
// the same source builds against another checkout's libraries (before/after,
// runs/bench_migration.py).
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "balance/partition.hpp"
#include "lu/solver.hpp"
#include "verify/class_table.hpp"

namespace {

using namespace npblu;

double max_over_ranks(double local) {
  double slowest = 0.0;
  MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

/// Seconds of `work` on the slowest rank, from a barrier.
template <class Work>
double timed(Work&& work) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  work();
  return max_over_ranks(MPI_Wtime() - t0);
}

/// `p` with `columns` more columns on rank 0, taken from rank 1 (fewer if
/// a stripe would fall below the minimum width).
Partition shifted(const Partition& p, int& columns) {
  std::vector<int> widths = p.widths();
  columns = std::clamp(columns, kMinimumColumnWidth - widths[0], widths[1] - kMinimumColumnWidth);
  widths[0] += columns;
  widths[1] -= columns;
  return Partition::from_widths(p.interior(), widths);
}

std::string json_list(const std::vector<double>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

int run(int argc, char** argv, int rank, int ranks) {
  const std::optional<ProblemClass> pc = argc > 3 ? find_problem_class(argv[1][0]) : std::nullopt;
  const int repeats = argc > 3 ? std::atoi(argv[2]) : 0;
  if (!pc || repeats < 1 || ranks < 2) {
    if (rank == 0) std::fprintf(stderr, "usage: mpiexec -n P (>= 2) bench_migration CLASS REPEATS STEP...\n");
    return 2;
  }
  std::vector<int> steps;
  for (int a = 3; a < argc; ++a) steps.push_back(std::atoi(argv[a]));
  SolverConfig config;
  config.grid = {pc->n, pc->n, pc->n};
  config.iterations = pc->itmax;
  config.dt = pc->dt;
  LuSolver solver(MPI_COMM_WORLD, config, Partition::equal(config.grid.interior_columns(), ranks));
  // Balancing on, as lu --balance diffusive has it; the hook itself never moves.
  solver.set_rebalance([](int, auto) { return false; });
  solver.start();
  std::vector<double> iterations, seconds;
  std::vector<int> moved;
  for (int r = 0; r < repeats; ++r) {
    for (int c : steps) {
      iterations.push_back(timed([&] { solver.advance(1); }));
      const Partition next = shifted(solver.partition(), c);
      seconds.push_back(timed([&] { solver.repartition(next); }));
      moved.push_back(c);
    }
  }
  iterations.push_back(timed([&] { solver.advance(1); }));
  std::vector<double> sorted = iterations;
  std::sort(sorted.begin(), sorted.end());
  if (rank == 0) {
    std::string m = "[";
    for (std::size_t i = 0; i < moved.size(); ++i) m += (i ? ", " : "") + std::to_string(moved[i]);
    std::printf(
        "{\"class\": \"%c\", \"ranks\": %d, \"iteration_s\": %s, \"median_iteration_s\": %.6f, "
        "\"moved\": %s], \"step_s\": %s}\n",
        pc->name, ranks, json_list(iterations).c_str(), sorted[sorted.size() / 2], m.c_str(),
        json_list(seconds).c_str());
  }
  return 0;
}

}  // namespace

// Its own MPI frame, not lu/mpi/mpi_program.hpp's: this source also builds
// against checkouts from before that header (runs/bench_migration.py).
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int status = 1;
  try {
    status = run(argc, argv, rank, ranks);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_migration: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}
