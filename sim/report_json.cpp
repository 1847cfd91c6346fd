#include "sim/report_json.hpp"

#include "lu/io/report.hpp"

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

nlohmann::json decisions_json(const std::vector<DecisionRecord>& decisions) {
  nlohmann::json log = nlohmann::json::array();
  for (const auto& d : decisions) {
    log.push_back({{"iteration", d.iteration},
                   {"moved_columns", d.moved_columns},
                   {"predicted_before", d.predicted_before},
                   {"predicted_after", d.predicted_after},
                   {"measured_before", d.measured_before},
                   {"measured_after", d.measured_after},
                   {"gain_s", d.gain},
                   {"horizon", d.horizon},
                   {"price_s", d.price},
                   {"price_paid_s", d.price_paid}});
  }
  return log;
}

// The model's settings: what calibrates it.
void put_model(nlohmann::json& j, const SimConfig& c) {
  j["noise"] = c.noise;
  j["noise_correlation"] = c.noise_correlation;
  j["migration_iterations"] = c.migration_iterations;
  j["migration_column_seconds"] = c.migration_column_seconds;
  j["seed"] = c.seed;
  j["cost"] = {{"lower", c.cost.lower},   {"upper", c.cost.upper},     {"rhs", c.cost.rhs},
               {"update", c.cost.update}, {"latency", c.cost.latency}, {"bandwidth", c.cost.bandwidth}};
}

}  // namespace

nlohmann::json report_json(const SimConfig& c, const SimResult& r, double wall, bool history) {
  nlohmann::json j;
  j["program"] = "lu-sim";
  j["ranks"] = c.ranks;
  j["grid"] = {c.grid.nx, c.grid.ny, c.grid.nz};
  j["iterations"] = c.iterations;
  j["balance"] = mode_name(c.balance);
  j["balance_every"] = c.settings.every;
  j["emulated_speeds"] = emulation_json(c.speeds);
  put_model(j, c);
  j["bottleneck_ratio_by_iteration"] = r.bottleneck_ratio;
  j["bottleneck_ratio_final"] = r.bottleneck_ratio.back();
  j["decisions"] = decisions_json(r.decisions);
  j["time_s"] = r.time;
  j["model_seconds"] = wall;
  j["iteration_time_s"] = r.iteration_time;
  j["migrated_columns"] = r.migrated_columns;
  j["columns"] = r.final_columns;
  j.update(balance_json(r.history, r.moves, r.steps, r.moved_columns));
  if (history) j["history"] = history_json(r.history);
  return j;
}

}  // namespace npblu::sim
