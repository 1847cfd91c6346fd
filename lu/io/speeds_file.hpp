#pragma once
// A speeds file (--emulate-speeds @FILE, lu's and lu-sim's): one speed a line
// per rank, a line "@N" starting the speeds from iteration N on; read into
// the --emulate-speeds syntax that SpeedSchedule parses, each problem named
// by the file's line.
#include <optional>
#include <string>
#include <string_view>

namespace npblu {

/// The file an --emulate-speeds value names ("@FILE"), or none (a list or a
/// schedule). A schedule never starts with '@' (it starts with the initial
/// speeds), so every "@..." names a file, ':' and all, except one that reads
/// as a misplaced segment ("@80:1,0.5") when no such file exists: that is
/// left to the schedule's parser, whose message says what is wrong with it.
/// "@" alone throws UsageError (a missing file name), for lu and lu-sim alike.
std::optional<std::string> speeds_file_named(std::string_view spec);

/// The schedule of the file at `path` for a run of `ranks` ranks, as
/// --emulate-speeds text ("1,1;@80:1,0.5"). Throws UsageError naming the
/// file and line: a line of two words, a speed outside [0.01, 1], an @N not
/// after the previous one, a segment without `ranks` speeds, no speeds.
std::string read_speed_file(const std::string& path, int ranks);

}  // namespace npblu
