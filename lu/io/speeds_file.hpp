#pragma once
// A speeds file (--emulate-speeds @FILE, lu's and lu-sim's): one speed a line
// per rank, a line "@N" starting the speeds from iteration N on; read into
// the --emulate-speeds syntax that SpeedSchedule parses, each problem named
// by the file's line.
#include <string>

namespace npblu {

/// The schedule of the file at `path` for a run of `ranks` ranks, as
/// --emulate-speeds text ("1,1;@80:1,0.5"). Throws UsageError naming the
/// file and line: a line of two words, a speed outside [0.01, 1], an @N not
/// after the previous one, a segment without `ranks` speeds, no speeds.
std::string read_speed_file(const std::string& path, int ranks);

}  // namespace npblu
