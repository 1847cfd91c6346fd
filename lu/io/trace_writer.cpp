#include "lu/io/trace_writer.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "lu/io/hdf5_objects.hpp"
#include "lu/io/output_files.hpp"
#include "lu/run/run_config.hpp"

namespace npblu {

namespace {

using hdf5::check;
using hdf5::check_id;
using hdf5::Id;
using hdf5::string_attribute;

constexpr hsize_t kChunkRows = 64;  // rows of a trace dataset's chunk

// An extendible dataset of `columns` values per row, chunked along rows.
Id extendible(hid_t group, const char* name, hid_t type, hsize_t columns, const char* units,
              const char* meaning) {
  const int rank = columns > 0 ? 2 : 1;
  hsize_t dims[2] = {0, columns}, max[2] = {H5S_UNLIMITED, columns},
          chunk[2] = {kChunkRows, std::max<hsize_t>(1, columns)};
  Id space(check_id(H5Screate_simple(rank, dims, max), "dataset space"), H5Sclose);
  Id props(check_id(H5Pcreate(H5P_DATASET_CREATE), "dataset properties"), H5Pclose);
  check(H5Pset_chunk(props, rank, chunk), "chunking");
  Id ds(check_id(H5Dcreate2(group, name, type, space, H5P_DEFAULT, props, H5P_DEFAULT), name), H5Dclose);
  string_attribute(ds, "units", units);
  string_attribute(ds, "meaning", meaning);
  return ds;
}

// Appends `rows` rows (of `columns` values, or scalars when columns == 0) at row `at`.
void append_rows(hid_t ds, hid_t type, hsize_t at, hsize_t rows, hsize_t columns, const void* data) {
  if (rows == 0) return;
  const int rank = columns > 0 ? 2 : 1;
  hsize_t size[2] = {at + rows, columns};
  check(H5Dset_extent(ds, size), "extend");
  Id file_space(check_id(H5Dget_space(ds), "dataset space"), H5Sclose);
  hsize_t start[2] = {at, 0}, count[2] = {rows, columns};
  check(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, nullptr, count, nullptr), "select");
  Id mem_space(check_id(H5Screate_simple(rank, count, nullptr), "memory space"), H5Sclose);
  check(H5Dwrite(ds, type, mem_space, file_space, H5P_DEFAULT, data), "write");
}

hid_t hdf5_type(RecordType type) { return type == RecordType::integer ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE; }

}  // namespace

struct TraceWriter::Handles {
  Id file, iterations_group, balance_group;
  Id iteration, bottleneck_ratio;
  std::vector<Id> fields;  // per field of the per-iteration record (iteration_record.hpp)
  Id move_iteration, move_boundary, move_columns;
};

std::optional<int> trace_fault_injection_iteration() {
  const char* at = std::getenv("NPBLU_TEST_FAIL_TRACE_AT");
  if (!at) return std::nullopt;
  return std::atoi(at);
}

bool is_partition_trace(const std::filesystem::path& path) {
  hdf5::QuietErrors quiet;  // (its queries too; the file closes before it ends)
  const Id file = hdf5::open_if_hdf5(path);
  return file >= 0 && H5Lexists(file, "iterations", H5P_DEFAULT) > 0 &&
         H5Lexists(file, "iterations/iteration", H5P_DEFAULT) > 0 && H5Aexists(file, "format_version") <= 0;
}

TraceWriter::TraceWriter(const std::string& path, bool overwrite, const RunIdentity& run)
    : h_(std::make_unique<Handles>()), ranks_(run.ranks), fail_at_(trace_fault_injection_iteration()) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // we report errors ourselves
  if (const auto problem = check_trace_path(path, overwrite); !problem.empty())
    throw std::runtime_error(problem);
  // A new trace is written in place (a killed run leaves it readable up to
  // its last flush), created with O_EXCL; one that replaces a trace is
  // written aside and renamed over it at commit(), so a failed run leaves
  // the previous trace whole.
  path_ = path;
  std::error_code ec;
  const bool replaces = std::filesystem::exists(std::filesystem::symlink_status(path_, ec));
  hid_t file = -1;
  if (replaces) {
    lock_ = FileLock(path_);  // held until the run ends: another run sees this trace in use
    file = hdf5::create_aside(path_, aside_);
  } else {
    errno = 0;
    file = H5Fcreate(path.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    if (file < 0) {
      const std::string reason = hdf5::system_reason();
      // (EXCL: a file there now is the one this call began, e.g. on a full disk)
      std::filesystem::remove(path_, ec);
      throw std::runtime_error("cannot create the trace file '" + path + "'" + reason);
    }
  }
  h_->file = Id(file, H5Fclose);
  try {
    write_layout(run);
  } catch (...) {
    discard();
    if (!replaces) std::filesystem::remove(path_, ec);  // a new trace without its layout is no trace
    throw;
  }
}

void TraceWriter::write_layout(const RunIdentity& run) {
  const hid_t file = h_->file;
  write_identity_attributes(file, run);

  h_->iterations_group =
      Id(check_id(H5Gcreate2(file, "iterations", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "group"), H5Gclose);
  const hid_t g = h_->iterations_group;
  const hsize_t p = run.ranks;
  h_->iteration = extendible(g, "iteration", H5T_NATIVE_INT, 0, "1", "timed iteration number, from 1");
  for (const RecordFieldInfo& f : iteration_record_fields())
    h_->fields.push_back(extendible(g, f.trace_name, hdf5_type(f.type), p, f.units, f.meaning));
  h_->bottleneck_ratio = extendible(
      g, "bottleneck_ratio", H5T_NATIVE_DOUBLE, 0, "1",
      "max over ranks of width / speed over the same for the best whole-column partition, this iteration "
      "(lu: at the speeds the ranks measured; lu-sim: at the model's); NaN where a rank measured no compute");

  h_->balance_group =
      Id(check_id(H5Gcreate2(file, "balance", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "group"), H5Gclose);
  const hid_t b = h_->balance_group;
  h_->move_iteration =
      extendible(b, "iteration", H5T_NATIVE_INT, 0, "1", "timed iteration after which it moved");
  h_->move_boundary =
      extendible(b, "boundary", H5T_NATIVE_INT, 0, "1", "boundary between rank b and rank b+1");
  h_->move_columns = extendible(b, "columns", H5T_NATIVE_INT, 0, "column",
                                "columns moved from rank b to rank b+1 (negative: from b+1 to b)");
  flush();
}

TraceWriter::~TraceWriter() {
  if (!committed_) discard();
}

void TraceWriter::discard() {
  if (h_) hdf5::detach_from_disk(h_->file);  // (a trace's last flush is what stays of it)
  h_.reset();
  std::error_code ec;
  if (!aside_.empty()) std::filesystem::remove(aside_, ec);  // the previous trace stays
  aside_.clear();
}

void TraceWriter::commit() {
  flush();
  const herr_t closed = h_->file.reset();
  h_.reset();
  check(closed, "close the trace");
  if (!aside_.empty()) commit_aside(aside_, path_);
  aside_.clear();
  committed_ = true;
}

void TraceWriter::append(const RunHistory& rows, int first_iteration,
                         std::span<const double> bottleneck_ratio) {
  errno = 0;
  const hsize_t n = rows.iterations(), p = ranks_;
  if (bottleneck_ratio.size() != n)
    throw std::logic_error("TraceWriter::append: " + std::to_string(bottleneck_ratio.size()) +
                           " bottleneck ratios for " + std::to_string(n) + " iterations");
  if (fail_at_ && first_iteration + static_cast<int>(n) > *fail_at_) {
    throw std::runtime_error("HDF5 failure: write (test fault injection NPBLU_TEST_FAIL_TRACE_AT=" +
                             std::to_string(*fail_at_) + ")");
  }
  std::vector<int> numbers(n);
  for (hsize_t i = 0; i < n; ++i) numbers[i] = first_iteration + static_cast<int>(i);
  append_rows(h_->iteration, H5T_NATIVE_INT, iterations_written_, n, 0, numbers.data());
  append_rows(h_->bottleneck_ratio, H5T_NATIVE_DOUBLE, iterations_written_, n, 0, bottleneck_ratio.data());
  const auto fields = iteration_record_fields();
  for (std::size_t f = 0; f < fields.size(); ++f) {
    const auto values = rows.values(f);
    if (fields[f].type == RecordType::integer) {
      const std::vector<int> ints(values.begin(), values.end());
      append_rows(h_->fields[f], H5T_NATIVE_INT, iterations_written_, n, p, ints.data());
    } else {
      append_rows(h_->fields[f], H5T_NATIVE_DOUBLE, iterations_written_, n, p, values.data());
    }
  }
  iterations_written_ += n;
  unflushed_bytes_ += n * (p * fields.size() + 2) * sizeof(double);
}

void TraceWriter::append_moves(std::span<const BalanceMove> moves) {
  std::vector<int> it, boundary, columns;
  for (const auto& m : moves) {
    it.push_back(m.iteration);
    boundary.push_back(m.boundary);
    columns.push_back(m.columns);
  }
  append_rows(h_->move_iteration, H5T_NATIVE_INT, moves_written_, it.size(), 0, it.data());
  append_rows(h_->move_boundary, H5T_NATIVE_INT, moves_written_, it.size(), 0, boundary.data());
  append_rows(h_->move_columns, H5T_NATIVE_INT, moves_written_, it.size(), 0, columns.data());
  moves_written_ += it.size();
  unflushed_bytes_ += it.size() * 3 * sizeof(int);
}

void TraceWriter::flush() {
  // Room first: a flush that fails leaves HDF5 1.10 unable to close the file
  // (hdf5::detach_from_disk). Twice what was appended, a new chunk of every
  // dataset (kChunkRows rows) and room for metadata.
  const std::filesystem::path written = aside_.empty() ? written_path(path_) : aside_;
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(written, ec);
  const std::uintmax_t chunks =
      kChunkRows * (hsize_t(ranks_) * iteration_record_fields().size() + 5) * sizeof(double);
  if (const std::string room =
          hdf5::room_problem(written, ec ? 0 : size, 2 * unflushed_bytes_ + chunks + hdf5::kMetadataRoom);
      !room.empty())
    throw std::runtime_error("no room to flush the trace " + quote_value(written.string()) + room);
  errno = 0;
  check(H5Fflush(h_->file, H5F_SCOPE_GLOBAL), "flush");
  unflushed_bytes_ = 0;
}

}  // namespace npblu
