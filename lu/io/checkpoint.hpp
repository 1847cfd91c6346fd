#pragma once
// Checkpoints of a running solver, collectively: rank 0 writes or reads the
// file (checkpoint_file.hpp) one stripe at a time, the other ranks send or
// receive their own columns. One writer rather than collective MPI-IO: the
// file is written aside and renamed, which needs one process to own it, a
// stripe is one contiguous hyperslab either way, and rank 0 checksums the
// field as the columns pass in global order. Memory on rank 0: its own
// stripe plus the largest other one. Every failure is agreed: the same
// error on every rank (RunFailure writing, RunError reading).
#include <mpi.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "lu/io/checkpoint_file.hpp"
#include "lu/solver.hpp"

namespace npblu {

/// The columns of global field u a rank saves and restores: its owned
/// columns, and the boundary column beside them at either end of the grid.
ColumnRange saved_columns(ColumnRange owned, int ny);

struct CheckpointStats {
  double seconds = 0.0;      // rank 0's, from the first byte to the rename (or to the last read)
  std::uintmax_t bytes = 0;  // the file's size
};

/// Rank 0's verdict on a checkpoint path before writing: "" or the problem
/// (output_files.hpp: not a regular file, a missing or unwritable
/// directory, a name too long for its aside name; and an existing file
/// that is not a checkpoint, which would be lost), naming `option`.
std::string check_checkpoint_path(const std::filesystem::path& path,
                                  std::string_view option = "--checkpoint");

/// Rank 0's verdict before a run writes its first checkpoint: "" or the
/// problem with `path` holding a checkpoint this run does not continue
/// (`restart` is another file, or none). Such a file holds another run's
/// progress (a job resubmitted without --restart): it is replaced only when
/// `overwrite` (--checkpoint-overwrite). A file that is no checkpoint is
/// check_checkpoint_path's concern.
std::string check_other_runs_checkpoint(const std::filesystem::path& path,
                                        const std::filesystem::path& restart, bool overwrite);

/// Collective: writes `solver`'s state to `path` (aside, then renamed) with
/// `header` (its iteration, timers and partition filled by the caller, the
/// checksum here). Throws RunFailure on every rank when it fails; the
/// previous checkpoint at `path`, if any, is then untouched.
CheckpointStats save_checkpoint(const std::filesystem::path& path, const CheckpointHeader& header,
                                const LuSolver& solver, MPI_Comm comm);

/// Collective: the header of the checkpoint at `path` (read by rank 0,
/// broadcast whole through the header's table). Throws RunError on every
/// rank, naming --restart and the problem, when the file is refused.
CheckpointHeader read_checkpoint_header(const std::filesystem::path& path, MPI_Comm comm);

/// Collective, after solver.start(): u from the checkpoint at `path` (whose
/// header is `header`) into the solver's columns, checked against the
/// stored checksum, then the derived state rebuilt and the iteration count
/// and timed seconds resumed. Throws RunError on every rank when refused.
CheckpointStats restore_checkpoint(const std::filesystem::path& path, const CheckpointHeader& header,
                                   LuSolver& solver, MPI_Comm comm);

}  // namespace npblu
