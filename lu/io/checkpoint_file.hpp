#pragma once
// The checkpoint file (HDF5): everything a run needs to continue exactly,
// on any ranks and stripes. Serial: one process (rank 0 of a run) writes or
// reads it, column range by column range, so it never holds more than one
// rank's stripe of the field (lu/io/checkpoint.hpp moves the stripes).
//
// Layout (format version 2; README, "Checkpoint and restart"):
//   /u                 double [ny][nz][nx][5]: the SSOR state, every column
//                      (boundary columns included), in Field5's column layout
//   root attributes    format_version, program_version, isa (the kernels' level that wrote
//                      it: information only: v3 and v4 compute the same bits, baseline others), created, command_line,
//                      class, grid, iterations, dt (bit for bit), iteration
//                      (timed iterations done), timed_seconds, ranks,
//                      column_widths, balance, balance_{every,threshold,damping},
//                      balance_moved_columns, emulated_speeds,
//                      phase_names, phase_seconds_{min,max,mean},
//                      field_checksum (field_checksum.hpp's digest of u),
//                      header_checksums (one digest per attribute above:
//                      checkpoint_header.hpp, the one table of attributes)
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

namespace npblu {

// 2: header_checksums (every header attribute checksummed), ranks,
// emulated_speeds and balance_{every,threshold,damping} (a restart continues them).
inline constexpr int kCheckpointFormatVersion = 2;

/// Everything in the file but the field.
struct CheckpointHeader {
  int format_version = kCheckpointFormatVersion;
  std::string program_version;
  std::string isa;      // the kernels' level that wrote it (information only: lu/isa.hpp)
  std::string created;  // ISO 8601 UTC
  std::string command_line;
  char problem_class = 'U';
  GridSize grid;
  int iterations = 0;  // itmax
  double dt = 0.0;
  int iteration = 0;  // timed iterations done: the run continues with iteration + 1
  double timed_seconds = 0.0;
  int ranks = 0;                   // as stored: the writer stores column_widths.size()
  std::vector<int> column_widths;  // per rank, when written
  std::string balance = "static";  // off | static | diffusive
  int balance_every = 5;           // the diffusive balancer's settings (run_config.hpp)
  double balance_threshold = 0.02;
  double balance_damping = 1.0;
  int balance_moved_columns = 0;
  std::string emulated_speeds;  // the --emulate-speeds schedule ("" for none): a restart continues it
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
