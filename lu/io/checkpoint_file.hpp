#pragma once
// The checkpoint file (HDF5): everything a run needs to continue exactly,
// on any ranks and stripes. Serial: one process (rank 0 of a run) writes or
// reads it, column range by column range, so it never holds more than one
// rank's stripe of the field (lu/io/checkpoint.hpp moves the stripes).
//
// Layout (format version 2; README, "Checkpoint and restart"):
//   /u                 double [ny][nz][nx][5]: the SSOR state, every column
//                      (boundary columns included), in Field5's column layout
//   root attributes    the header: the run identity's checkpoint fields
//                      (run_identity.cpp) and the checkpoint's own, each
//                      checksummed (checkpoint_header.cpp: the one table of
//                      attributes, their ranges and checksums)
//
// Durability: a writer writes FILE.XXXXXX.tmp (a fresh name, created with
// O_EXCL: output_files.hpp), closes it, fsyncs it, renames it over FILE and
// fsyncs the directory, so FILE is always either the previous
// complete checkpoint or the new complete one, whenever the process dies.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "lu/grid.hpp"
#include "lu/io/run_identity.hpp"

namespace npblu {

// 2: header_checksums (every header attribute checksummed), ranks,
// emulated_speeds and balance_{every,threshold,damping} (a restart continues them).
inline constexpr int kCheckpointFormatVersion = 3;  // 3: the balancer's state

/// Everything in the file but the field.
struct CheckpointHeader {
  int format_version = kCheckpointFormatVersion;
  RunIdentity run;      // its checkpoint fields: the problem, stripes (when written), balancer, speeds
  std::string created;  // ISO 8601 UTC
  int iteration = 0;    // timed iterations done: the run continues with iteration + 1
  double timed_seconds = 0.0;
  int balance_moved_columns = 0;
  // The diffusive balancer's evidence, step prices and counts
  // (BalancerSession::saved_state); empty for runs without it.
  std::vector<double> balancer_state;
  std::vector<std::string> phase_names;
  std::vector<double> phase_seconds_min, phase_seconds_max, phase_seconds_mean;
  std::string field_checksum;
};

class CheckpointWriter {
 public:
  /// Creates a new file beside `path` (hdf5::create_aside) with the header
  /// and an empty field; throws std::runtime_error naming the problem.
  CheckpointWriter(std::filesystem::path path, const CheckpointHeader& header);
  ~CheckpointWriter();  // an uncommitted file is removed
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  /// Columns [begin, end) of u, each nx*nz*5 doubles in Field5's layout.
  void write_columns(int begin, int end, const double* data);
  /// The field's checksum (known once every column has passed), then
  /// close, fsync, rename over the final path, fsync the directory.
  void commit(const std::string& field_checksum);
  /// The aside file being written (empty once committed or never created).
  [[nodiscard]] const std::filesystem::path& temporary() const { return temporary_; }

 private:
  void create_contents();

  struct Handles;
  std::unique_ptr<Handles> h_;
  std::filesystem::path path_;
  std::filesystem::path temporary_;
  CheckpointHeader header_;
  GridSize grid_;
  bool committed_ = false;
};

/// Whether `path` is an HDF5 file with npblu's checkpoint format attribute
/// (of any version): a file a checkpoint may replace, where any other
/// existing file is someone's data.
bool is_npblu_checkpoint(const std::filesystem::path& path);

class CheckpointReader {
 public:
  /// Opens and reads the header, checking the format version and that the
  /// field has the header's grid; throws std::runtime_error with a message
  /// saying what is wrong with the file (missing, not a checkpoint, other
  /// version, truncated or corrupt).
  explicit CheckpointReader(const std::filesystem::path& path);
  ~CheckpointReader();
  CheckpointReader(const CheckpointReader&) = delete;
  CheckpointReader& operator=(const CheckpointReader&) = delete;

  [[nodiscard]] const CheckpointHeader& header() const { return header_; }
  /// Columns [begin, end) of u into `data` (Field5's layout).
  void read_columns(int begin, int end, double* data);

 private:
  struct Handles;
  std::unique_ptr<Handles> h_;
  std::string path_;
  CheckpointHeader header_;
};

}  // namespace npblu
