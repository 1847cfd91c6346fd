#include "sim/report_json.hpp"

#include <cctype>

#include "lu/io/report.hpp"
#include "verify/class_table.hpp"

namespace npblu::sim {

const char* mode_name(BalanceMode m) {
  switch (m) {
    case BalanceMode::off:
      return "off";
    case BalanceMode::fixed:
      return "static";
    case BalanceMode::diffusive:
      return "diffusive";
    case BalanceMode::best:
      return "best";
  }
  return "?";
}

namespace {

// The model's settings: what calibrates it.
void put_model(nlohmann::json& j, const SimConfig& c) {
  j["noise"] = c.noise;
  j["noise_correlation"] = c.noise_correlation;
  j["migration_iterations"] = c.migration_iterations;
  j["migration_column_seconds"] = c.migration_column_seconds;
  j["seed"] = c.seed;
  if (!c.cores.empty()) {
    j["cores"] = c.cores;  // ranks with equal numbers share a core
    j["core_slice"] = c.core_slice;
  }
  if (c.unpinned.node_ranks > 0) {
    j["unpinned"] = {{"node_ranks", c.unpinned.node_ranks},
                     {"node_cores", c.unpinned.node_cores},
                     {"scheduler_period", c.unpinned.scheduler_period},
                     {"starting_cores", starting_cores(c)}};
    j["core_slice"] = c.core_slice;
  }
  if (!c.core_speeds.empty()) j["core_speeds"] = c.core_speeds;
  j["cost"] = {{"lower", c.cost.lower},   {"upper", c.cost.upper},     {"rhs", c.cost.rhs},
               {"update", c.cost.update}, {"latency", c.cost.latency}, {"bandwidth", c.cost.bandwidth}};
}

}  // namespace

RunIdentity run_identity(const SimConfig& c, const std::string& class_name, const std::string& command_line) {
  RunIdentity id;
  id.program = "lu-sim";
  id.program_version = NPBLU_VERSION;
  id.isa = "model";  // no kernels run
  id.mpi_library = mpi_library_version();
  id.command_line = command_line;
  id.start_time = utc_now();
  id.hosts.assign(c.ranks, "lu-sim");
  id.problem_class = class_name.empty() ? "U" : class_name;
  if (const auto pc =
          class_name.size() == 1 ? find_problem_class(char(std::toupper(class_name[0]))) : std::nullopt) {
    id.problem_class = std::string(1, pc->name);
    id.dt = pc->dt;
  }
  id.grid = c.grid;
  id.iterations = c.iterations;
  id.ranks = c.ranks;
  try {
    id.column_widths = starting_partition(c).widths();
  } catch (const std::invalid_argument&) {
    id.column_widths = c.columns;  // simulate() refuses them, naming the problem
  }
  StartingWeights placed = starting_weights(c);
  id.weight_source = std::move(placed.source);
  id.weights = std::move(placed.weights);
  id.balance = mode_name(c.balance);
  id.balance_every = c.settings.every;
  id.balance_threshold = c.settings.threshold;
  id.balance_damping = c.settings.damping;
  id.emulated_speeds = c.speeds.spec();
  id.waits.assign(c.ranks, "model");  // modelled ranks wait for nothing
  return id;
}

nlohmann::json report_json(const RunIdentity& run, const SimConfig& c, const SimResult& r, double wall,
                           bool history) {
  nlohmann::json j;
  put_identity(j, run);
  put_model(j, c);
  j["bottleneck_ratio_by_iteration"] = r.bottleneck_ratio;
  j["bottleneck_ratio_final"] = r.bottleneck_ratio.back();
  // The whole run's, as lu's JSON computes it: from the speeds the modelled ranks "measured" (noise
  // included).
  j["bottleneck_ratio"] = r.history.window_bottleneck_ratio(0, r.history.iterations(), c.max_columns);
  j["time_s"] = r.time;
  j["model_seconds"] = wall;
  j["iteration_time_s"] = r.iteration_time;
  j["migrated_columns"] = r.migrated_columns;
  j["share_pools"] = r.share_pools;  // as lu's JSON: each rank's pool (its lowest rank), [] with none
  j["columns"] = r.final_columns;
  j["max_columns"] = c.max_columns;
  j.update(balance_json(r.history, r.moves, r.decisions, r.steps, r.moved_columns));
  if (history) j["history"] = history_json(r.history);
  return j;
}

}  // namespace npblu::sim
