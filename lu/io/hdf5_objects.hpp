#pragma once
// Small HDF5 helpers shared by the trace and the checkpoint files: an owning
// identifier, status checks that throw, and attributes written and read
// whole (scalars, 1-D arrays, strings).
#include <hdf5.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "lu/io/output_files.hpp"

namespace npblu::hdf5 {

using npblu::aside_name;

// The system's reason, when HDF5's failure came from a system call (a full
// disk: "No space left on device"); callers clear errno before HDF5 calls.
inline std::string system_reason() {
  return errno != 0 ? std::string(" (") + std::strerror(errno) + ")" : "";
}

inline void check(herr_t status, const std::string& what) {
  if (status < 0) throw std::runtime_error("HDF5 failure: " + what + system_reason());
}

inline hid_t check_id(hid_t id, const std::string& what) {
  if (id < 0) throw std::runtime_error("HDF5 failure: " + what);
  return id;
}

// An owning HDF5 identifier.
class Id {
 public:
  Id() = default;
  Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Id(Id&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  Id& operator=(Id&& o) noexcept {
    std::swap(id_, o.id_);
    std::swap(close_, o.close_);
    return *this;
  }
  ~Id() { reset(); }
  /// Closes now; returns the close's status (0 when there was nothing to close).
  herr_t reset() {
    const herr_t status = id_ >= 0 && close_ ? close_(id_) : 0;
    id_ = -1;
    return status;
  }
  operator hid_t() const { return id_; }

 private:
  hid_t id_ = -1;
  herr_t (*close_)(hid_t) = nullptr;
};

/// While alive, HDF5 prints no error stack (we report errors ourselves, in
/// one line); the previous setting comes back after.
class QuietErrors {
 public:
  QuietErrors() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

/// `path` opened read-only when it is an HDF5 file that opens, else an empty
/// Id (negative): what the "is it one of ours?" tests start from, without an
/// error stack.
inline Id open_if_hdf5(const std::filesystem::path& path) {
  QuietErrors quiet;
  if (H5Fis_hdf5(path.c_str()) <= 0) return {};
  return Id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
}

inline void string_attribute(hid_t obj, const char* name, const std::string& value) {
  Id type(check_id(H5Tcopy(H5T_C_S1), "string type"), H5Tclose);
  check(H5Tset_size(type, value.size() + 1), "string size");  // with its terminator
  Id space(check_id(H5Screate(H5S_SCALAR), "scalar space"), H5Sclose);
  Id attr(check_id(H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), name), H5Aclose);
  check(H5Awrite(attr, type, value.c_str()), name);
}

template <class T>
void array_attribute(hid_t obj, const char* name, hid_t type, const std::vector<T>& values) {
  const hsize_t n = values.size();
  Id space(check_id(n ? H5Screate_simple(1, &n, nullptr) : H5Screate(H5S_NULL), "attribute space"), H5Sclose);
  Id attr(check_id(H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), name), H5Aclose);
  if (n) check(H5Awrite(attr, type, values.data()), name);
}

inline void strings_attribute(hid_t obj, const char* name, const std::vector<std::string>& values) {
  std::size_t width = 1;
  for (const auto& v : values) width = std::max(width, v.size() + 1);
  std::vector<char> packed(width * values.size(), '\0');
  for (std::size_t i = 0; i < values.size(); ++i) values[i].copy(&packed[i * width], width);
  Id type(check_id(H5Tcopy(H5T_C_S1), "string type"), H5Tclose);
  check(H5Tset_size(type, width), "string size");
  const hsize_t n = values.size();
  Id space(check_id(n ? H5Screate_simple(1, &n, nullptr) : H5Screate(H5S_NULL), "attribute space"), H5Sclose);
  Id attr(check_id(H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), name), H5Aclose);
  if (n) check(H5Awrite(attr, type, packed.data()), name);
}

/// A numeric attribute of any length, converted to `type` (H5T_NATIVE_INT, ...).
template <class T>
std::vector<T> read_array_attribute(hid_t obj, const char* name, hid_t type) {
  if (H5Aexists(obj, name) <= 0) throw std::runtime_error(std::string("attribute '") + name + "' missing");
  Id attr(check_id(H5Aopen(obj, name, H5P_DEFAULT), name), H5Aclose);
  Id space(check_id(H5Aget_space(attr), name), H5Sclose);
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  if (n < 0) throw std::runtime_error(std::string("attribute '") + name + "' unreadable");
  std::vector<T> values(static_cast<std::size_t>(n));
  if (n > 0) check(H5Aread(attr, type, values.data()), name);
  return values;
}

/// A numeric attribute that must hold exactly one value.
template <class T>
T read_scalar_attribute(hid_t obj, const char* name, hid_t type) {
  const auto values = read_array_attribute<T>(obj, name, type);
  if (values.size() != 1) throw std::runtime_error(std::string("attribute '") + name + "' is not one value");
  return values[0];
}

/// A scalar string attribute, fixed or variable length (h5py writes the latter).
inline std::string read_string_attribute(hid_t obj, const char* name) {
  if (H5Aexists(obj, name) <= 0) throw std::runtime_error(std::string("attribute '") + name + "' missing");
  Id attr(check_id(H5Aopen(obj, name, H5P_DEFAULT), name), H5Aclose);
  Id type(check_id(H5Aget_type(attr), name), H5Tclose);
  if (H5Tget_class(type) != H5T_STRING)
    throw std::runtime_error(std::string("attribute '") + name + "' is not a string");
  if (H5Tis_variable_str(type) > 0) {
    char* text = nullptr;
    Id memory(check_id(H5Tcopy(H5T_C_S1), "string type"), H5Tclose);
    check(H5Tset_size(memory, H5T_VARIABLE), "string size");
    check(H5Aread(attr, memory, &text), name);
    std::string value = text ? text : "";
    H5free_memory(text);
    return value;
  }
  const std::size_t size = H5Tget_size(type);
  std::vector<char> text(size + 1, '\0');
  check(H5Aread(attr, type, text.data()), name);
  return std::string(text.data());
}

/// A 1-D string array attribute of fixed-length strings.
inline std::vector<std::string> read_strings_attribute(hid_t obj, const char* name) {
  if (H5Aexists(obj, name) <= 0) throw std::runtime_error(std::string("attribute '") + name + "' missing");
  Id attr(check_id(H5Aopen(obj, name, H5P_DEFAULT), name), H5Aclose);
  Id type(check_id(H5Aget_type(attr), name), H5Tclose);
  Id space(check_id(H5Aget_space(attr), name), H5Sclose);
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  if (H5Tget_class(type) != H5T_STRING || H5Tis_variable_str(type) > 0 || n < 0)
    throw std::runtime_error(std::string("attribute '") + name + "' is not a fixed-length string array");
  const std::size_t width = H5Tget_size(type);
  std::vector<char> packed(width * static_cast<std::size_t>(n) + 1, '\0');
  if (n > 0) check(H5Aread(attr, type, packed.data()), name);
  std::vector<std::string> values;
  for (hssize_t i = 0; i < n; ++i)
    values.emplace_back(&packed[i * width], strnlen(&packed[i * width], width));
  return values;
}

/// Points the descriptor of `file` (the default sec2 driver's) at an
/// anonymous file in memory, before a file whose writes failed is closed and
/// thrown away: HDF5 flushes as it closes, and what reached the disk stays as
/// it was. In HDF5 1.10.8 a flush that fails leaves the file's cache unable
/// to flush again, so that no close succeeds and its shutdown at MPI_Finalize
/// crashes on the file (SIGSEGV, not the run's exit status): writers check
/// for room first (room_problem), so that their flushes do not fail.
inline void detach_from_disk(hid_t file) {
  void* handle = nullptr;
  if (file < 0 || H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) < 0 || !handle) return;
  const hid_t access = H5Fget_access_plist(file);
  const bool sec2 = access >= 0 && H5Pget_driver(access) == H5FD_SEC2;
  if (access >= 0) H5Pclose(access);
  if (!sec2) return;
  const int memory = ::memfd_create("npblu-discarded", MFD_CLOEXEC);
  if (memory < 0) return;
  ::dup2(memory, *static_cast<int*>(handle));
  ::close(memory);
}

/// Room a writer leaves beyond its data for HDF5's metadata (room_problem).
inline constexpr std::uintmax_t kMetadataRoom = 32u << 10;

/// "" or why `bytes` more may not fit the file `path` (of `size` bytes now):
/// fewer free bytes on its file system, or past this process's file size
/// limit (ulimit -f). Checked before a flush or a large write (see
/// detach_from_disk); a failure for any other reason stays possible.
inline std::string room_problem(const std::filesystem::path& path, std::uintmax_t size,
                                std::uintmax_t bytes) {
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      size + bytes > limit.rlim_cur)
    return " (File too large: " + std::to_string(size + bytes) +
           " bytes would pass this process's file size limit, ulimit -f, of " +
           std::to_string(limit.rlim_cur) + " bytes)";
  struct statvfs fs {};
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  if (::statvfs(dir.c_str(), &fs) == 0 && std::uintmax_t(fs.f_bavail) * fs.f_frsize < bytes)
    return " (No space left on device: " + std::to_string(std::uintmax_t(fs.f_bavail) * fs.f_frsize) +
           " bytes free, about " + std::to_string(bytes) + " needed)";
  return {};
}

/// Creates a new HDF5 file beside `path` under a fresh aside name
/// (output_files.hpp), set in `aside`: H5F_ACC_EXCL is O_CREAT|O_EXCL, which
/// never opens a file already there and never follows a symlink. Throws
/// std::runtime_error naming the problem.
inline hid_t create_aside(const std::filesystem::path& path, std::filesystem::path& aside) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    aside = aside_name(path);
    errno = 0;
    const hid_t file = H5Fcreate(aside.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    if (file >= 0) return file;
    const std::string reason = system_reason();
    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::symlink_status(aside, ec))) {
      aside.clear();
      throw std::runtime_error("cannot create a file beside '" + path.string() + "'" + reason);
    }
  }
  aside.clear();
  throw std::runtime_error("cannot create a file beside '" + path.string() + "'");
}

}  // namespace npblu::hdf5
