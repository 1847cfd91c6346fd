// MPI integration test: u is the whole SSOR state.
//
//   mpiexec -n P checkpoint_state CLASS ITERATION
//
// A checkpoint holds only u (lu/io/checkpoint_file.hpp): the forcing and
// the residual the next iteration starts from are rebuilt from it. This
// checks that claim bit for bit: solver A runs ITERATION timed iterations;
// solver B, freshly started on the same stripes, is given A's u (its owned
// and boundary columns, what a checkpoint restores) and state_written();
// then B's forcing and residual must equal A's in every owned column, bit for
// bit, and both must go on to the same field (field_checksum) and norms
// after every further iteration to the end. Then the same through a real
// checkpoint file, restored on other stripes (the reversed widths): the
// final field must be A's, and a file replaced after its header was read
// is refused. Exit 0 on pass, 1 on failure, 2 on bad arguments.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "balance/partition.hpp"
#include "lu/io/checkpoint.hpp"
#include "lu/mpi/agreement.hpp"
#include "lu/solver.hpp"
#include "verify/class_table.hpp"

namespace {

using namespace npblu;

bool same_columns(const Field5& a, const Field5& b, ColumnRange columns) {
  for (int j = columns.begin; j < columns.end; ++j) {
    if (std::memcmp(a.column(j), b.column(j), a.column_stride() * sizeof(double)) != 0) return false;
  }
  return true;
}

/// Whether `ok` holds on every rank.
bool everywhere(bool ok) {
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

void copy_state(const LuSolver& from, LuSolver& to, int ny) {
  const ColumnRange saved = saved_columns(from.owned(), ny);
  Field5& u = to.writable_state();
  std::memcpy(u.column(saved.begin), from.state().column(saved.begin),
              from.state().column_stride() * saved.width() * sizeof(double));
}

int fail(int rank, const std::string& what) {
  if (rank == 0) std::printf("FAIL: %s\n", what.c_str());
  return 1;
}

/// Whether a restore refuses, on every rank, a file another run replaced
/// after its header was read (here: the same field saved as a later
/// iteration): its field must never continue from the old header.
bool replaced_file_refused(const std::string& path, const CheckpointHeader& read_before,
                           CheckpointHeader header, const LuSolver& a, const SolverConfig& config,
                           const std::vector<int>& widths) {
  header.iteration += 1;
  save_checkpoint(path, header, a, MPI_COMM_WORLD);
  LuSolver d(MPI_COMM_WORLD, config, Partition::from_widths(config.grid.interior_columns(), widths));
  d.start();
  bool refused = false;
  try {
    restore_checkpoint(path, read_before, d, MPI_COMM_WORLD);
  } catch (const RunError& e) {
    refused = std::string(e.what()).find("was replaced since its header was read") != std::string::npos;
  }
  return everywhere(refused);
}

int run(const SolverConfig& config, int iteration, int rank, int size) {
  const ColumnRange interior = config.grid.interior_columns();
  const Partition stripes = Partition::equal(interior, size);
  LuSolver a(MPI_COMM_WORLD, config, stripes);
  a.start();
  a.advance(iteration);
  LuSolver b(MPI_COMM_WORLD, config, stripes);
  b.start();
  copy_state(a, b, config.grid.ny);
  b.state_written();
  b.resume(iteration, 0.0);
  if (!everywhere(same_columns(a.forcing(), b.forcing(), a.owned())))
    return fail(rank, "the forcing rebuilt from u differs");
  if (!everywhere(same_columns(a.residual(), b.residual(), a.owned())))
    return fail(rank, "the residual rebuilt from u differs from the one the iterations left");
  if (a.residual_norms() != b.residual_norms()) return fail(rank, "the residual norms differ");

  // A checkpoint file, restored on the reversed stripes.
  const std::string path = "checkpoint_state_" + std::to_string(size) + ".h5";
  CheckpointHeader header;
  header.run.grid = config.grid;
  header.run.iterations = config.iterations;
  header.run.dt = config.dt;
  header.iteration = iteration;
  header.run.column_widths = stripes.widths();
  save_checkpoint(path, header, a, MPI_COMM_WORLD);
  std::vector<int> reversed = stripes.widths();
  std::reverse(reversed.begin(), reversed.end());
  LuSolver c(MPI_COMM_WORLD, config, Partition::from_widths(interior, reversed));
  c.start();
  const CheckpointHeader read_before = read_checkpoint_header(path, MPI_COMM_WORLD);
  restore_checkpoint(path, read_before, c, MPI_COMM_WORLD);
  if (!replaced_file_refused(path, read_before, header, a, config, reversed))
    return fail(rank, "a checkpoint replaced after its header was read was restored with the old header");
  if (rank == 0) std::remove(path.c_str());

  while (!a.finished()) {
    a.advance(1);
    b.advance(1);
    c.advance(1);
    const bool same = a.checksum() == b.checksum() && a.checksum() == c.checksum();
    if (!everywhere(same) || a.residual_norms() != b.residual_norms())
      return fail(rank, "the runs diverged at iteration " + std::to_string(a.iterations_done()));
  }
  const SolveResult ra = a.finish(), rb = b.finish();
  if (ra.residual_norms != rb.residual_norms || ra.error_norms != rb.error_norms)
    return fail(rank, "the final norms differ");
  if (rank == 0)
    std::printf(
        "u is the whole state: forcing and residual rebuilt bit for bit at iteration %d on %d ranks; "
        "same field after each of the %d later iterations, also from a checkpoint file on stripes %s\n",
        iteration, size, config.iterations - iteration,
        Partition::from_widths(interior, reversed).to_string().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1, status = 2;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto pc = argc == 3 ? find_problem_class(argv[1][0]) : std::nullopt;
  const int iteration = argc == 3 ? std::atoi(argv[2]) : 0;
  if (!pc || iteration < 1 || iteration >= pc->itmax) {
    if (rank == 0) std::fprintf(stderr, "usage: checkpoint_state CLASS ITERATION (1 <= ITERATION < itmax)\n");
  } else {
    SolverConfig config;
    config.grid = {pc->n, pc->n, pc->n};
    config.iterations = pc->itmax;
    config.dt = pc->dt;
    status = run(config, iteration, rank, size);
  }
  MPI_Finalize();
  return status;
}
