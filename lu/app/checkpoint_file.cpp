#include "lu/app/checkpoint_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "lu/app/hdf5_objects.hpp"
#include "lu/field.hpp"
#include "lu/isa.hpp"

namespace npblu {

namespace {

using hdf5::check;
using hdf5::check_id;
using hdf5::Id;

constexpr const char* kField = "u";

// The field's file space: [ny][nz][nx][5], Field5's column layout, so a
// column range is one contiguous hyperslab.
std::array<hsize_t, 4> field_dims(const GridSize& g) {
  return {hsize_t(g.ny), hsize_t(g.nz), hsize_t(g.nx), hsize_t(Field5::kComponents)};
}

void write_header(hid_t file, const CheckpointHeader& h) {
  using hdf5::array_attribute;
  using hdf5::string_attribute;
  array_attribute(file, "format_version", H5T_NATIVE_INT, std::vector<int>{h.format_version});
  string_attribute(file, "program_version", h.program_version);
  // Information only: every level computes the same bits (lu/isa.hpp), so a restart may run at any level.
  string_attribute(file, "isa", isa_name(active_isa()));
  string_attribute(file, "created", h.created);
  string_attribute(file, "command_line", h.command_line);
  string_attribute(file, "class", std::string(1, h.problem_class));
  array_attribute(file, "grid", H5T_NATIVE_INT, std::vector<int>{h.grid.nx, h.grid.ny, h.grid.nz});
  array_attribute(file, "iterations", H5T_NATIVE_INT, std::vector<int>{h.iterations});
  array_attribute(file, "dt", H5T_NATIVE_DOUBLE, std::vector<double>{h.dt});
  array_attribute(file, "iteration", H5T_NATIVE_INT, std::vector<int>{h.iteration});
  array_attribute(file, "timed_seconds", H5T_NATIVE_DOUBLE, std::vector<double>{h.timed_seconds});
  array_attribute(file, "ranks", H5T_NATIVE_INT, std::vector<int>{static_cast<int>(h.column_widths.size())});
  array_attribute(file, "column_widths", H5T_NATIVE_INT, h.column_widths);
  string_attribute(file, "balance", h.balance);
  array_attribute(file, "balance_moved_columns", H5T_NATIVE_INT, std::vector<int>{h.balance_moved_columns});
  hdf5::strings_attribute(file, "phase_names", h.phase_names);
  array_attribute(file, "phase_seconds_min", H5T_NATIVE_DOUBLE, h.phase_seconds_min);
  array_attribute(file, "phase_seconds_max", H5T_NATIVE_DOUBLE, h.phase_seconds_max);
  array_attribute(file, "phase_seconds_mean", H5T_NATIVE_DOUBLE, h.phase_seconds_mean);
}

// The "field_checksum" attribute is written last, at commit: a file without
// it was never completed (it is also never renamed into place).
CheckpointHeader read_header(hid_t file) {
  using hdf5::read_array_attribute;
  using hdf5::read_scalar_attribute;
  using hdf5::read_string_attribute;
  CheckpointHeader h;
  h.format_version = read_scalar_attribute<int>(file, "format_version", H5T_NATIVE_INT);
  h.program_version = read_string_attribute(file, "program_version");
  h.created = read_string_attribute(file, "created");
  h.command_line = read_string_attribute(file, "command_line");
  const std::string cls = read_string_attribute(file, "class");
  if (cls.size() != 1) throw std::runtime_error("attribute 'class' is not one letter");
  h.problem_class = cls[0];
  const auto grid = read_array_attribute<int>(file, "grid", H5T_NATIVE_INT);
  if (grid.size() != 3) throw std::runtime_error("attribute 'grid' is not three sizes");
  h.grid = {grid[0], grid[1], grid[2]};
  h.iterations = read_scalar_attribute<int>(file, "iterations", H5T_NATIVE_INT);
  h.dt = read_scalar_attribute<double>(file, "dt", H5T_NATIVE_DOUBLE);
  h.iteration = read_scalar_attribute<int>(file, "iteration", H5T_NATIVE_INT);
  h.timed_seconds = read_scalar_attribute<double>(file, "timed_seconds", H5T_NATIVE_DOUBLE);
  h.column_widths = read_array_attribute<int>(file, "column_widths", H5T_NATIVE_INT);
  h.balance = read_string_attribute(file, "balance");
  h.balance_moved_columns = read_scalar_attribute<int>(file, "balance_moved_columns", H5T_NATIVE_INT);
  h.phase_names = hdf5::read_strings_attribute(file, "phase_names");
  h.phase_seconds_min = read_array_attribute<double>(file, "phase_seconds_min", H5T_NATIVE_DOUBLE);
  h.phase_seconds_max = read_array_attribute<double>(file, "phase_seconds_max", H5T_NATIVE_DOUBLE);
  h.phase_seconds_mean = read_array_attribute<double>(file, "phase_seconds_mean", H5T_NATIVE_DOUBLE);
  h.field_checksum = read_string_attribute(file, "field_checksum");
  return h;
}

// Another version's layout may mean anything: refuse it before reading more.
void check_format_version(hid_t file) {
  int version = 0;
  try {
    version = hdf5::read_scalar_attribute<int>(file, "format_version", H5T_NATIVE_INT);
  } catch (const std::runtime_error&) {
    throw std::runtime_error("unreadable format version (not an npblu checkpoint?)");
  }
  if (version != kCheckpointFormatVersion) {
    throw std::runtime_error("checkpoint format version " + std::to_string(version) +
                             ", but this lu reads version " + std::to_string(kCheckpointFormatVersion) +
                             " only");
  }
}

// Header values a reader relies on before touching the field.
void check_header(const CheckpointHeader& h) {
  const GridSize& g = h.grid;
  if (g.nx < 1 || g.ny < 3 || g.nz < 1 || h.iterations < 1 || !(h.dt > 0.0) || h.iteration < 0 ||
      h.iteration > h.iterations)
    throw std::runtime_error("inconsistent header (grid, iterations, dt or iteration)");
}

// The hyperslab of columns [begin, end) in the file and its memory twin.
struct Slab {
  Id file_space, memory_space;
};

Slab column_slab(hid_t dataset, const GridSize& g, int begin, int end) {
  if (begin < 0 || end > g.ny || begin > end)
    throw std::logic_error("checkpoint: column range outside the grid");
  Slab s;
  s.file_space = Id(check_id(H5Dget_space(dataset), "field space"), H5Sclose);
  auto count = field_dims(g);
  count[0] = hsize_t(end - begin);
  const std::array<hsize_t, 4> start{hsize_t(begin), 0, 0, 0};
  check(H5Sselect_hyperslab(s.file_space, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
        "select columns");
  s.memory_space = Id(check_id(H5Screate_simple(4, count.data(), nullptr), "memory space"), H5Sclose);
  return s;
}

// Durability on POSIX: the data of `path` on disk now.
void sync_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDWR);
  if (fd < 0 || ::fsync(fd) != 0) {
    const std::string reason = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    throw std::runtime_error("cannot sync '" + path.string() + "' (" + reason + ")");
  }
  ::close(fd);
}

// The rename itself is durable once the directory's entry is on disk.
void sync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;  // some file systems refuse: the rename is still atomic
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

std::filesystem::path checkpoint_temporary(const std::filesystem::path& path) {
  return std::filesystem::path(path.string() + ".tmp");
}

struct CheckpointWriter::Handles {
  Id file, field;
};

CheckpointWriter::CheckpointWriter(std::filesystem::path path, const CheckpointHeader& header)
    : h_(std::make_unique<Handles>()), path_(std::move(path)), grid_(header.grid) {
  hdf5::QuietErrors quiet;
  const auto temporary = checkpoint_temporary(path_);
  errno = 0;
  const hid_t file = H5Fcreate(temporary.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file < 0)
    throw std::runtime_error("cannot create the checkpoint '" + temporary.string() + "'" +
                             hdf5::system_reason());
  h_->file = Id(file, H5Fclose);
  write_header(file, header);
  const auto dims = field_dims(grid_);
  Id space(check_id(H5Screate_simple(4, dims.data(), nullptr), "field space"), H5Sclose);
  h_->field =
      Id(check_id(H5Dcreate2(file, kField, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                  "create the field"),
         H5Dclose);
  hdf5::string_attribute(h_->field, "layout",
                         "u[j][k][i][m]: global column j, plane k, point i, component m (0-based)");
}

CheckpointWriter::~CheckpointWriter() {
  if (committed_) return;
  hdf5::QuietErrors quiet;
  h_.reset();
  std::error_code ec;
  std::filesystem::remove(checkpoint_temporary(path_), ec);
}

void CheckpointWriter::write_columns(int begin, int end, const double* data) {
  hdf5::QuietErrors quiet;
  errno = 0;
  const Slab s = column_slab(h_->field, grid_, begin, end);
  check(H5Dwrite(h_->field, H5T_NATIVE_DOUBLE, s.memory_space, s.file_space, H5P_DEFAULT, data),
        "write the field");
}

void CheckpointWriter::commit(const std::string& field_checksum) {
  hdf5::QuietErrors quiet;
  errno = 0;
  hdf5::string_attribute(h_->file, "field_checksum", field_checksum);
  h_->field.reset();
  check(h_->file.reset(), "close the checkpoint");
  const auto temporary = checkpoint_temporary(path_);
  sync_file(temporary);
  if (std::rename(temporary.c_str(), path_.c_str()) != 0) {
    throw std::runtime_error("cannot rename '" + temporary.string() + "' to '" + path_.string() + "' (" +
                             std::strerror(errno) + ")");
  }
  committed_ = true;
  sync_directory(path_.parent_path());
}

struct CheckpointReader::Handles {
  Id file, field;
};

CheckpointReader::CheckpointReader(const std::filesystem::path& path)
    : h_(std::make_unique<Handles>()), path_(path.string()) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw std::runtime_error("no such file");
  if (!std::filesystem::is_regular_file(path, ec)) throw std::runtime_error("not a regular file");
  hdf5::QuietErrors quiet;
  if (H5Fis_hdf5(path.c_str()) <= 0) throw std::runtime_error("not an HDF5 file (or truncated or corrupt)");
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) throw std::runtime_error("cannot open it as HDF5 (truncated or corrupt?)");
  h_->file = Id(file, H5Fclose);
  if (H5Aexists(file, "format_version") <= 0) throw std::runtime_error("not an npblu checkpoint");
  check_format_version(file);
  try {
    header_ = read_header(file);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("unreadable checkpoint header: ") + e.what());
  }
  check_header(header_);
  if (H5Lexists(file, kField, H5P_DEFAULT) <= 0) throw std::runtime_error("the field 'u' is missing");
  h_->field = Id(check_id(H5Dopen2(file, kField, H5P_DEFAULT), "open the field"), H5Dclose);
  Id space(check_id(H5Dget_space(h_->field), "field space"), H5Sclose);
  std::array<hsize_t, 4> dims{};
  const auto expected = field_dims(header_.grid);
  if (H5Sget_simple_extent_ndims(space) != 4 || H5Sget_simple_extent_dims(space, dims.data(), nullptr) != 4 ||
      dims != expected)
    throw std::runtime_error("the field's shape does not match the grid");
}

CheckpointReader::~CheckpointReader() {
  hdf5::QuietErrors quiet;
  h_.reset();
}

void CheckpointReader::read_columns(int begin, int end, double* data) {
  hdf5::QuietErrors quiet;
  errno = 0;
  const Slab s = column_slab(h_->field, header_.grid, begin, end);
  if (H5Dread(h_->field, H5T_NATIVE_DOUBLE, s.memory_space, s.file_space, H5P_DEFAULT, data) < 0)
    throw std::runtime_error("cannot read the field (truncated or corrupt)" + hdf5::system_reason());
}

}  // namespace npblu
