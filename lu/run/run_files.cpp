#include "lu/run/run_files.hpp"

#include "lu/io/checkpoint.hpp"

namespace npblu {

std::vector<RunFile> run_files(const RunConfig& config) {
  std::vector<RunFile> files;
  if (!config.output.json.empty()) files.push_back({"--json", config.output.json, true});
  if (!config.output.trace.empty()) files.push_back({"--trace", config.output.trace, true});
  if (!config.checkpoint.path.empty()) files.push_back({"--checkpoint", config.checkpoint.path, true});
  if (!config.checkpoint.restart.empty()) files.push_back({"--restart", config.checkpoint.restart, false});
  if (!config.placement.weights.file.empty())
    files.push_back({"--weights @FILE", config.placement.weights.file, false});
  if (!config.emulation_file.empty())
    files.push_back({"--emulate-speeds @FILE", config.emulation_file, false});
  return files;
}

std::string probe_outputs(const RunConfig& config) {
  const OutputConfig& output = config.output;
  if (auto problem = same_file_problem(run_files(config)); !problem.empty()) return problem;
  if (!output.json.empty()) {
    if (auto problem = check_report_path("--json", output.json); !problem.empty()) return problem;
  }
  if (!output.trace.empty()) {
    if (auto problem = check_trace_path(output.trace, output.trace_overwrite); !problem.empty())
      return problem;
  }
  if (!config.checkpoint.path.empty()) {
    if (auto problem = check_checkpoint_path(config.checkpoint.path); !problem.empty()) return problem;
    const CheckpointConfig& c = config.checkpoint;
    if (auto problem = check_other_runs_checkpoint(c.path, c.restart, c.overwrite); !problem.empty())
      return problem;
  }
  return {};
}

}  // namespace npblu
