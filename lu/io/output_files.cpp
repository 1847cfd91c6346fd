#include "lu/io/output_files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>
#include <vector>

#include "lu/io/checkpoint_file.hpp"
#include "lu/io/trace_writer.hpp"
#include "lu/mpi/messages.hpp"

namespace npblu {

namespace {

namespace fs = std::filesystem;

std::string named(std::string_view option, const fs::path& path) {
  return std::string(option) + " " + quote_value(path.string());
}

fs::path directory_of(const fs::path& path) { return path.has_parent_path() ? path.parent_path() : "."; }

// What makes two names one file: the device and inode of an existing file
// (hard links and symlinks included); for one not yet there, its absolute
// path with the directory resolved (symlinks, "..", ".").
struct Identity {
  bool exists = false;
  dev_t device = 0;
  ino_t inode = 0;
  std::string resolved;

  bool operator==(const Identity& o) const {
    return exists == o.exists && (exists ? device == o.device && inode == o.inode : resolved == o.resolved);
  }
};

Identity identity_of(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) return {true, st.st_dev, st.st_ino, {}};
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  fs::path resolved = fs::weakly_canonical(absolute, ec);
  return {false, 0, 0, (ec ? absolute.lexically_normal() : resolved).string()};
}

// What the file is to the run, for messages.
std::string role(const RunFile& f) {
  if (f.option == "--json") return "JSON report";
  if (f.option == "--trace") return "trace";
  if (f.option == "--restart") return "checkpoint to continue";
  if (f.option.find("weights") != std::string::npos) return "weights file";
  if (f.option.find("emulate-speeds") != std::string::npos) return "speeds file";
  if (f.option.find("checkpoint") != std::string::npos) return "checkpoint";
  return f.option;
}

bool may_share(const RunFile& a, const RunFile& b) {
  if (!a.output && !b.output) return true;
  return (a.option == "--restart" && role(b) == "checkpoint") ||
         (b.option == "--restart" && role(a) == "checkpoint");
}

std::string errno_text(int error) { return std::strerror(error); }

// Longest file name in `dir` (NAME_MAX where pathconf does not say).
long name_max(const fs::path& dir) {
  errno = 0;
  const long n = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  return n > 0 ? n : NAME_MAX;
}

std::string length_problem(std::string_view option, const fs::path& path) {
  const std::size_t name = path.filename().string().size();
  const long limit = name_max(directory_of(path));
  if (name + kAsideSuffixLength > std::size_t(limit)) {
    return named(option, path) + ": the file name has " + std::to_string(name) +
           " characters; it is written aside under a name " + std::to_string(kAsideSuffixLength) +
           " longer, and the file system allows " + std::to_string(limit) + ": give a shorter name";
  }
  std::error_code ec;
  const std::size_t full = fs::absolute(path, ec).string().size();
  if (full + kAsideSuffixLength >= PATH_MAX) {
    return named(option, path) + ": the path has " + std::to_string(full) + " characters; with the " +
           std::to_string(kAsideSuffixLength) + " of its aside name it exceeds the limit of " +
           std::to_string(PATH_MAX - 1) + ": give a shorter path";
  }
  return {};
}

void write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(errno_text(errno));
    text.remove_prefix(std::size_t(n));
  }
}

void sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // some file systems refuse: the rename is atomic all the same
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

std::string same_file_problem(std::span<const RunFile> files) {
  std::vector<Identity> ids;
  for (const RunFile& f : files) ids.push_back(identity_of(f.path));
  for (std::size_t a = 0; a < files.size(); ++a) {
    for (std::size_t b = a + 1; b < files.size(); ++b) {
      if (may_share(files[a], files[b]) || !(ids[a] == ids[b])) continue;
      const RunFile& written = files[a].output ? files[a] : files[b];
      const RunFile& other = files[a].output ? files[b] : files[a];
      return named(files[a].option, files[a].path) + " and " + named(files[b].option, files[b].path) +
             " are the same file: the " + role(written) + " would destroy the " + role(other) +
             " (give different files)";
    }
  }
  return {};
}

fs::path written_path(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_symlink(fs::symlink_status(path, ec))) return path;
  if (fs::exists(path, ec)) {
    const fs::path target = fs::canonical(path, ec);
    return ec ? path : target;
  }
  // A link to a file not there yet (a scratch file system's run file, linked
  // before the first run): the file is created where the chain ends (once,
  // the link itself was replaced by the file). A loop is left as given.
  fs::path at = path;
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(at, ec)); ++hops) {
    const fs::path target = fs::read_symlink(at, ec);
    if (ec) return path;
    at = target.is_absolute() ? target : at.parent_path() / target;
  }
  return fs::is_symlink(fs::symlink_status(at, ec)) ? path : at;
}

std::string output_path_problem(std::string_view option, const fs::path& given) {
  if (given.empty()) return std::string(option) + " needs a file name, got an empty one";
  const fs::path path = written_path(given);
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (fs::is_directory(status)) return named(option, given) + ": is a directory; give a file name";
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    return named(option, given) +
           ": not a regular file (a device, FIFO or socket is never written over: give a file name)";
  }
  const fs::path dir = directory_of(path);
  if (!fs::is_directory(dir, ec))
    return named(option, given) + ": directory " + quote_value(dir.string()) + " does not exist";
  // Written aside and renamed: the directory itself must be writable.
  if (::access(dir.c_str(), W_OK) != 0)
    return named(option, given) + ": directory " + quote_value(dir.string()) + " is not writable";
  return length_problem(option, path);
}

namespace {

/// Whether `path` holds a JSON object with the keys every report of lu,
/// lu-sim and the C API has.
bool is_json_report(const fs::path& path) {
  std::ifstream in(path);
  const nlohmann::json report = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return report.is_object() && report.contains("program") && report.contains("program_version");
}

}  // namespace

std::string check_replaces_only(std::string_view option, const fs::path& path,
                                bool (*is_kind)(const fs::path&), std::string_view kind) {
  if (std::string problem = output_path_problem(option, path); !problem.empty()) return problem;
  std::error_code ec;
  const bool replaceable = !fs::exists(path, ec) || fs::file_size(path, ec) == 0 || is_kind(path);
  if (!replaceable)
    return named(option, path) + ": exists and is not " + std::string(kind) +
           ": not replaced (remove it, or name another file)";
  return {};
}

std::string check_report_path(std::string_view option, const fs::path& path) {
  return check_replaces_only(option, path, is_json_report, "a JSON report");
}

std::string check_trace_path(const fs::path& path, bool overwrite) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  const std::string named = "--trace " + quote_value(path.string());
  if (fs::is_directory(status)) {
    return named + ": is a directory; give a file name, e.g. " + quote_value((path / "trace.h5").string());
  }
  if (fs::exists(status) && !fs::is_regular_file(status))
    return named + ": not a regular file (a trace is an HDF5 file; a device or FIFO is never written over)";
  if (fs::exists(status) && !overwrite)
    return named + ": already exists (use --trace-overwrite to replace it)";
  if (fs::exists(status) && locked_by_another_process(path))
    return named + ": is being written by another run (it holds the file's lock): not touched";
  if (fs::exists(status) && is_npblu_checkpoint(path))
    return named +
           ": is an npblu checkpoint: --trace-overwrite replaces a trace, never a checkpoint (name another "
           "file)";
  if (fs::exists(status) && fs::file_size(path, ec) > 0 && !is_partition_trace(path))
    return named +
           ": exists and is not a partition trace: --trace-overwrite replaces a trace, never another file "
           "(remove it, or name another file)";
  return output_path_problem("--trace", path);
}

fs::path aside_name(const fs::path& given) {
  const fs::path path = written_path(given);
  static constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  thread_local std::mt19937_64 random(std::random_device{}() ^ (std::uint64_t(::getpid()) << 32));
  std::string suffix = ".";
  for (int i = 0; i < 6; ++i) suffix += kLetters[random() % (sizeof kLetters - 1)];
  return fs::path(path.string() + suffix + ".tmp");
}

bool locked_by_another_process(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  const bool locked = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // (releases our shared lock, if we got it)
  return locked;
}

FileLock::FileLock(const fs::path& path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) return;  // nothing there to lock (or not ours to open): the rename still replaces it whole
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
    ::close(fd_);
    fd_ = -1;
    throw std::runtime_error(quote_value(path.string()) +
                             " is being written by another run (it holds the file's lock)");
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);
}

FileLock& FileLock::operator=(FileLock&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

void commit_aside(const fs::path& aside, const fs::path& given) {
  const fs::path path = written_path(given);
  const int fd = ::open(aside.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    const std::string reason = errno_text(errno);
    if (fd >= 0) ::close(fd);
    throw std::runtime_error("cannot sync " + quote_value(aside.string()) + " (" + reason + ")");
  }
  ::close(fd);
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (fs::exists(status) && !fs::is_regular_file(status))
    throw std::runtime_error(quote_value(path.string()) + " is no longer a regular file: not replaced");
  if (std::rename(aside.c_str(), path.c_str()) != 0) {
    throw std::runtime_error("cannot rename " + quote_value(aside.string()) + " to " +
                             quote_value(path.string()) + " (" + errno_text(errno) + ")");
  }
  sync_directory(directory_of(path));
}

void write_file_whole(const fs::path& path, std::string_view text) {
  fs::path aside;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    aside = aside_name(path);
    fd = ::open(aside.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST)
      throw std::runtime_error("cannot create " + quote_value(aside.string()) + " (" + errno_text(errno) +
                               ")");
  }
  if (fd < 0) throw std::runtime_error("cannot create a file beside " + quote_value(path.string()));
  try {
    write_all(fd, text);
    if (::close(fd) != 0) {
      fd = -1;
      throw std::runtime_error(errno_text(errno));
    }
    fd = -1;
    commit_aside(aside, path);
  } catch (const std::exception& e) {
    if (fd >= 0) ::close(fd);
    ::unlink(aside.c_str());
    throw std::runtime_error("cannot write " + quote_value(path.string()) + ": " + e.what() +
                             " (the previous file, if any, is untouched)");
  }
}

}  // namespace npblu
