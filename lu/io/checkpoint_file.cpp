#include "lu/io/checkpoint_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "lu/field.hpp"
#include "lu/io/checkpoint_header.hpp"
#include "lu/io/hdf5_objects.hpp"
#include "lu/io/output_files.hpp"
#include "lu/mpi/messages.hpp"

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

// Another version's layout may mean anything: refuse it before reading more.
void check_format_version(hid_t file) {
  int version = 0;
  try {
    version = hdf5::read_scalar_attribute<int>(file, "format_version", H5T_NATIVE_INT);
  } catch (const std::runtime_error&) {
    throw std::runtime_error("unreadable format version (not an npblu checkpoint?)");
  }
  if (version != kCheckpointFormatVersion) {
    throw std::runtime_error("attribute 'format_version' is " + std::to_string(version) +
                             ": checkpoint format version " + std::to_string(version) +
                             ", but this lu reads version " + std::to_string(kCheckpointFormatVersion) +
                             " only");
  }
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

}  // namespace

struct CheckpointWriter::Handles {
  Id file, field;
};

CheckpointWriter::CheckpointWriter(std::filesystem::path path, const CheckpointHeader& header)
    : h_(std::make_unique<Handles>()), path_(std::move(path)), grid_(header.run.grid) {
  hdf5::QuietErrors quiet;
  header_ = header;
  header_.run.ranks = static_cast<int>(header.run.column_widths.size());
  // Room for the whole file first: a flush that fails leaves HDF5 1.10 unable
  // to close it (hdf5::detach_from_disk). The field and its header.
  std::uintmax_t bytes = sizeof(double);
  for (const hsize_t d : field_dims(grid_)) bytes *= d;
  if (const std::string room = hdf5::room_problem(written_path(path_), 0, bytes + hdf5::kMetadataRoom);
      !room.empty())
    throw std::runtime_error("no room for it" + room);
  h_->file = Id(hdf5::create_aside(path_, temporary_), H5Fclose);
  try {
    create_contents();
  } catch (...) {
    hdf5::detach_from_disk(h_->file);
    h_.reset();
    std::error_code ec;
    std::filesystem::remove(temporary_, ec);
    throw;
  }
}

void CheckpointWriter::create_contents() {
  const hid_t file = h_->file;
  write_header_attributes(file, header_);
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
  if (h_) hdf5::detach_from_disk(h_->file);  // thrown away: nothing more need reach the disk
  h_.reset();
  std::error_code ec;
  if (!temporary_.empty()) std::filesystem::remove(temporary_, ec);
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
  header_.field_checksum = field_checksum;
  write_header_checksums(h_->file, header_);
  h_->field.reset();
  // Flushed first: a flush that fails leaves the file open for the destructor
  // to throw away (a close that fails would leave it half closed).
  check(H5Fflush(h_->file, H5F_SCOPE_GLOBAL), "flush the checkpoint");
  check(h_->file.reset(), "close the checkpoint");
  commit_aside(temporary_, path_);
  committed_ = true;
}

bool is_npblu_checkpoint(const std::filesystem::path& path) {
  hdf5::QuietErrors quiet;  // (its queries too; the file closes before it ends)
  const Id file = hdf5::open_if_hdf5(path);
  return file >= 0 && H5Aexists(file, "format_version") > 0;
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
  if (file < 0 && locked_by_another_process(path))  // (HDF5 locks a file it writes: not a corrupt one)
    throw std::runtime_error("it is being written by another process (it holds the file's lock)");
  if (file < 0) throw std::runtime_error("cannot open it as HDF5 (truncated or corrupt?)");
  h_->file = Id(file, H5Fclose);
  if (H5Aexists(file, "format_version") <= 0) throw std::runtime_error("not an npblu checkpoint");
  check_format_version(file);
  header_ = read_header_attributes(file);
  if (H5Lexists(file, kField, H5P_DEFAULT) <= 0) throw std::runtime_error("the field 'u' is missing");
  h_->field = Id(check_id(H5Dopen2(file, kField, H5P_DEFAULT), "open the field"), H5Dclose);
  Id space(check_id(H5Dget_space(h_->field), "field space"), H5Sclose);
  std::array<hsize_t, 4> dims{};
  const auto expected = field_dims(header_.run.grid);
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
  const Slab s = column_slab(h_->field, header_.run.grid, begin, end);
  if (H5Dread(h_->field, H5T_NATIVE_DOUBLE, s.memory_space, s.file_space, H5P_DEFAULT, data) < 0)
    throw std::runtime_error("cannot read the field (truncated or corrupt)" + hdf5::system_reason());
}

}  // namespace npblu
