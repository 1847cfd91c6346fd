#pragma once
// Partition traces in HDF5. One writer, on rank 0: the trace is a few
// numbers per rank and iteration, gathered there every few iterations, so a
// single process appending to extendible datasets is simpler and cheaper than
// collective parallel HDF5, and makes durability easy: after each flush the
// file on disk is complete and consistent. Schema: the root attributes are
// the run identity (run_identity.hpp), the datasets of "iterations" the
// per-iteration record (iteration_record.hpp) and the balance quality of each
// iteration; docs/checkpoints.md, "Partition traces".
#include <hdf5.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lu/io/output_files.hpp"
#include "lu/io/run_history.hpp"
#include "lu/io/run_identity.hpp"

namespace npblu {

/// Whether `path` holds a partition trace (an HDF5 file with the dataset
/// "iterations/iteration" and no checkpoint's format_version): what
/// --trace-overwrite may replace.
bool is_partition_trace(const std::filesystem::path& path);

class TraceWriter {
 public:
  /// Creates the file and its datasets (check_trace_path first: never over a
  /// non-regular file or a trace a live run holds); throws
  /// std::runtime_error with a message naming the problem.
  TraceWriter(const std::string& path, bool overwrite, const RunIdentity& run);
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  /// Appends all iterations of `rows` (numbered from `first_iteration`) and
  /// each one's bottleneck ratio (one value per iteration of `rows`: lu's at
  /// the speeds its ranks measured, RunHistory::bottleneck_ratio_by_iteration;
  /// lu-sim's at the model's speeds).
  void append(const RunHistory& rows, int first_iteration, std::span<const double> bottleneck_ratio);
  void append_moves(std::span<const BalanceMove> moves);
  /// Writes everything buffered to the file (H5Fflush).
  void flush();
  /// Flushes and closes the file; a trace that replaces another (written
  /// aside) is renamed over it now. Without commit, a replacing trace is
  /// removed at destruction and the previous one stays; a new one stays as
  /// far as it was flushed.
  void commit();

 private:
  void write_layout(const RunIdentity& run);
  void discard();

  struct Handles;
  std::unique_ptr<Handles> h_;
  std::filesystem::path path_;
  std::filesystem::path aside_;  // empty: written in place
  FileLock lock_;                // on the trace being replaced
  bool committed_ = false;
  int ranks_ = 0;
  hsize_t iterations_written_ = 0;
  hsize_t moves_written_ = 0;
  std::uintmax_t unflushed_bytes_ = 0;  // appended since the last flush (its room is checked first)
  std::optional<int> fail_at_;          // test-only fault injection
};

/// Test-only fault injection: the iteration from which TraceWriter::append
/// fails as a full disk would, from the environment variable
/// NPBLU_TEST_FAIL_TRACE_AT=ITERATION (unset: never). Read here only; the
/// tests use it to show that a mid-run failure on rank 0 ends the run cleanly
/// on every rank.
std::optional<int> trace_fault_injection_iteration();

}  // namespace npblu
