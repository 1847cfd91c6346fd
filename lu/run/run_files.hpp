#pragma once
// The files a run names (outputs, --restart, --weights @FILE, --emulate-speeds
// @FILE) and whether it may write its outputs: probed by rank 0 at the start
// of a run, before anything is computed (lu/run/benchmark.cpp), and by the
// C API's npblu_checkpoint.
#include <string>
#include <vector>

#include "lu/io/output_files.hpp"
#include "lu/run/run_config.hpp"

namespace npblu {

/// Stage 3, on the rank that writes them: every output (JSON report, trace,
/// checkpoint) can be written without destroying anything (output_files.hpp:
/// a regular file or none yet, in a writable directory, a name whose aside
/// name fits; a checkpoint of another run only with --checkpoint-overwrite),
/// and no two of the run's files (outputs, --restart, --weights @FILE) are
/// one file. Returns "" or the problem.
std::string probe_outputs(const RunConfig& config);
/// The files a run names (output_files.hpp).
std::vector<RunFile> run_files(const RunConfig& config);

}  // namespace npblu
