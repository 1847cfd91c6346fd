#pragma once
// Outputs that never destroy a file (README, "Outputs"). Every file a run
// writes (the JSON report, the trace, checkpoints) is checked at the start
// together with the others and with the files the run reads: two of them
// naming one file (the same device and inode, or for files not yet there
// the same path once the directory is resolved) are refused, as is an
// output that exists and is not a regular file (a directory, a FIFO, a
// device: never replaced). A file is written aside, under a name made
// here that cannot collide (a random part, created with O_EXCL|O_NOFOLLOW,
// so never through a symlink we did not create), fsynced and renamed over
// the final name only when complete: the previous file survives every
// failure. The aside name's length is checked at the start too.
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace npblu {

/// A file a run names: the option that named it, and whether it is written.
struct RunFile {
  std::string option;  // "--json", "--trace", "npblu_checkpoint", ...
  std::filesystem::path path;
  bool output = true;
};

/// "" or the problem: two of `files` that are one file, unless both are
/// inputs, or they are the pair `--restart`/`--checkpoint` (a run that
/// continues a checkpoint and replaces it as it goes: the file is read at
/// the start and replaced only by a complete new one).
std::string same_file_problem(std::span<const RunFile> files);

/// Where writing `path` lands: the end of its chain of symbolic links when
/// it is one (users link run files into a scratch file system: the file
/// there is replaced, or created if the link's target is not there yet,
/// never the link), else `path`. Every writer writes aside beside it and
/// renames over it.
std::filesystem::path written_path(const std::filesystem::path& path);

/// "" or the problem with writing `path` (named by `option`): exists and is
/// not a regular file, its directory (its written_path's) missing or not
/// writable, or its name (or the aside name) too long for the file system.
std::string output_path_problem(std::string_view option, const std::filesystem::path& path);

/// "" or the problem with writing `path` (output_path_problem), or with
/// replacing it: an existing, non-empty file is replaced only when `is_kind`
/// says it is a file of the kind written (`kind`: "an npblu checkpoint", "a
/// JSON report"), so that a mistyped name destroys nobody's data.
std::string check_replaces_only(std::string_view option, const std::filesystem::path& path,
                                bool (*is_kind)(const std::filesystem::path&), std::string_view kind);

/// The JSON report's checks (`option`: "--json"): check_replaces_only with a
/// JSON report of ours (an object with "program" and "program_version"), so
/// that `--json run.h5` destroys no checkpoint, trace or data.
std::string check_report_path(std::string_view option, const std::filesystem::path& path);

/// The trace's checks: a regular file (or none yet) in a writable
/// directory, not existing unless `overwrite`, not locked by a live run
/// (locked_by_another_process), and with `overwrite` replacing no npblu
/// checkpoint (a trace is replaced by a trace). Returns "" or the problem.
std::string check_trace_path(const std::filesystem::path& path, bool overwrite);

/// Extra characters of an aside name over the final one ("." + 6 random + ".tmp").
inline constexpr std::size_t kAsideSuffixLength = 11;

/// A fresh candidate aside name beside written_path(path): "NAME.XXXXXX.tmp".
std::filesystem::path aside_name(const std::filesystem::path& path);

/// Whether another process holds a lock on the existing file `path` (an
/// HDF5 writer locks its file for as long as it is open): checked with a
/// read-only open and a non-blocking shared flock, which change nothing.
bool locked_by_another_process(const std::filesystem::path& path);

/// An exclusive flock on the existing file `path`, held while alive (the
/// file is opened read-only and never written): a run that replaces a
/// trace holds it, so that another run's locked_by_another_process sees
/// it, as it sees the lock HDF5 holds on a trace written in place.
class FileLock {
 public:
  FileLock() = default;
  /// Throws std::runtime_error when another process holds a lock on `path`.
  explicit FileLock(const std::filesystem::path& path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  FileLock(FileLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  FileLock& operator=(FileLock&& o) noexcept;

 private:
  int fd_ = -1;
};

/// Renames `aside` over written_path(path) after fsyncing it, then fsyncs the directory.
/// Refuses (std::runtime_error) when `path` has meanwhile become something
/// other than a regular file (a device, a directory): it is never replaced.
void commit_aside(const std::filesystem::path& aside, const std::filesystem::path& path);

/// Writes `text` to `path` aside and renames it into place (commit_aside).
/// On any failure (a full disk: "No space left on device", "File too
/// large") the aside file is removed, `path` is untouched, and
/// std::runtime_error names the problem.
void write_file_whole(const std::filesystem::path& path, std::string_view text);

}  // namespace npblu
