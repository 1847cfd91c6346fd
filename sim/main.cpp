// lu-sim: a model of an LU run on P columnwise stripes that drives the real
// balancer (see sim/simulation.hpp). Options follow lu's where they mean the
// same; the cost and network options calibrate the model.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "balance/parse_number.hpp"
#include "lu/io/output_files.hpp"
#include "lu/io/trace_writer.hpp"
#include "sim/report_json.hpp"
#include "sim/simulation.hpp"
#include "verify/class_table.hpp"

using namespace npblu;
using namespace npblu::sim;

namespace {

struct Usage : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "@FILE": one speed per line per rank (blank lines and '#' comments
// skipped); a line "@N" starts the speeds that take effect from iteration N.
// Returned in --emulate-speeds syntax, which SpeedSchedule parses.
std::string read_speed_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Usage("cannot read speeds file '" + path + "'");
  std::string line, spec, segment;
  while (std::getline(in, line)) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string word;
    if (!(words >> word)) continue;
    if (word[0] == '@') {
      spec += segment + ";" + word + ":";
      segment.clear();
    } else {
      segment += (segment.empty() ? "" : ",") + word;
    }
  }
  return spec + segment;
}

std::vector<int> parse_columns(const std::string& text) {
  auto widths = parse_int_list(text);
  if (!widths) throw Usage("--columns: '" + text + "' is not a comma-separated list of integers");
  return std::move(*widths);
}

// The model's costs: finite, a time >= 0, a bandwidth > 0 (a negative or NaN
// cost would give negative or NaN times with exit status 0).
void check_costs(const CostModel& cost) {
  const std::pair<const char*, double> times[] = {{"--cost-lower", cost.lower},
                                                  {"--cost-upper", cost.upper},
                                                  {"--cost-rhs", cost.rhs},
                                                  {"--cost-update", cost.update},
                                                  {"--latency", cost.latency}};
  for (const auto& [option, value] : times) {
    if (!std::isfinite(value) || value < 0.0)
      throw Usage(std::string(option) + " " + std::to_string(value) +
                  ": must be a finite number of seconds >= 0");
  }
  if (!std::isfinite(cost.bandwidth) || cost.bandwidth <= 0.0)
    throw Usage("--bandwidth " + std::to_string(cost.bandwidth) +
                ": must be a finite number of bytes per second > 0");
}

// The outputs, before simulating: never over a non-regular file, never one file twice.
void check_outputs(const std::string& json_path, const std::string& trace_path, bool overwrite) {
  std::vector<RunFile> files;
  if (!json_path.empty()) {
    if (auto problem = output_path_problem("--json", json_path); !problem.empty()) throw Usage(problem);
    files.push_back({"--json", json_path, true});
  }
  if (!trace_path.empty()) {
    if (auto problem = check_trace_path(trace_path, overwrite); !problem.empty()) throw Usage(problem);
    files.push_back({"--trace", trace_path, true});
  }
  if (auto problem = same_file_problem(files); !problem.empty()) throw Usage(problem);
}

// balance/ names its settings; the user gave flags.
std::string with_flag_names(std::string message) {
  static const std::pair<const char*, const char*> kNames[] = {
      {"every", "--balance-every"}, {"threshold", "--balance-threshold"}, {"damping", "--balance-damping"}};
  for (const auto& [setting, flag] : kNames) {
    if (message.rfind(setting, 0) == 0) return flag + message.substr(std::string(setting).size());
  }
  return message;
}

double worst_from(const std::vector<double>& ratio, int first) {
  double worst = 0.0;
  for (std::size_t i = std::max(0, first); i < ratio.size(); ++i) worst = std::max(worst, ratio[i]);
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "lu-sim: a model of LU on columnwise stripes (pipelined sweeps, halo exchange) driving the real "
      "diffusive balancer"};
  app.name("lu-sim");
  SimConfig c;
  std::string class_name, balance = "off", speeds, columns, json_path, trace_path;
  std::vector<int> size;
  std::optional<int> iterations;
  bool history = false, overwrite = false, quiet = false;
  app.add_option("--ranks,-P", c.ranks, "Modelled ranks")->required();
  app.add_option("--class,-c,class", class_name, "Problem class (grid and iterations): S W A B C D E F");
  app.add_option("--size", size, "Custom grid NX NY NZ")->expected(3);
  app.add_option("--iterations", iterations, "Iterations (default: the class's, else 250)");
  app.add_option("--balance", balance,
                 "off | static | diffusive | best (the best partition for the true speeds)");
  app.add_option("--balance-every", c.settings.every, "Balancing period K (default 5)");
  app.add_option("--balance-threshold", c.settings.threshold, "Wait-gap trigger (default 0.02)");
  app.add_option("--balance-damping", c.settings.damping, "Damping (default 1)");
  app.add_option("--columns", columns, "Starting widths W0,W1,...");
  app.add_option("--emulate-speeds", speeds,
                 "Speeds per rank, lu's schedule syntax ('1,0.5;@80:1,1'), or @FILE");
  app.add_option("--noise", c.noise,
                 "Relative standard deviation of each rank's compute per iteration (0.05: 5%)");
  app.add_option("--noise-correlation", c.noise_correlation,
                 "Lag-1 autocorrelation of each rank's noise in time, AR(1) with the same marginal deviation "
                 "as --noise (0: independent; 0.9: slow drifts)");
  app.add_option("--seed", c.seed, "Seed of the noise");
  app.add_option("--migration-iterations", c.migration_iterations,
                 "Price of a balancing step, in modelled iterations of the widest stripe (default 1: lu's "
                 "measured migration, which rebuilds the stripes)");
  app.add_option("--migration-column-seconds", c.migration_column_seconds,
                 "Price of a balancing step per column that changes owner, seconds (default 0)");
  app.add_option("--latency", c.cost.latency, "Seconds per message");
  app.add_option("--bandwidth", c.cost.bandwidth, "Bytes per second");
  app.add_option("--cost-lower", c.cost.lower, "Seconds per grid point, lower sweep (jacld+blts)");
  app.add_option("--cost-upper", c.cost.upper, "Seconds per grid point, upper sweep (jacu+buts)");
  app.add_option("--cost-rhs", c.cost.rhs, "Seconds per grid point, rhs");
  app.add_option("--cost-update", c.cost.update, "Seconds per grid point, update");
  app.add_option("--json", json_path, "Write the result as JSON");
  app.add_flag("--history", history, "Put the per-iteration, per-rank history in the JSON");
  app.add_option("--trace", trace_path, "Write a partition trace (HDF5, lu's schema)");
  app.add_flag("--trace-overwrite", overwrite, "Replace an existing trace file");
  app.add_flag("--quiet,-q", quiet, "Print nothing but errors");
  try {
    app.parse(argc, argv);
    if (!class_name.empty() && !size.empty()) throw Usage("give --class or --size, not both");
    int class_iterations = 250;
    if (!class_name.empty()) {
      const auto pc =
          class_name.size() == 1 ? find_problem_class(char(std::toupper(class_name[0]))) : std::nullopt;
      if (!pc) throw Usage("unknown class '" + class_name + "'");
      c.grid = {pc->n, pc->n, pc->n};
      class_iterations = pc->itmax;
    } else if (!size.empty()) {
      c.grid = {size[0], size[1], size[2]};
    } else {
      throw Usage("no problem given: --class or --size NX NY NZ");
    }
    c.iterations = iterations.value_or(class_iterations);
    if (balance == "off")
      c.balance = BalanceMode::off;
    else if (balance == "static")
      c.balance = BalanceMode::fixed;
    else if (balance == "diffusive")
      c.balance = BalanceMode::diffusive;
    else if (balance == "best")
      c.balance = BalanceMode::best;
    else
      throw Usage("--balance '" + balance + "': expected off, static, diffusive or best");
    if (c.ranks < 1) throw Usage("--ranks must be at least 1");
    if (c.ranks > Partition::max_ranks(c.grid.interior_columns())) {
      throw Usage("too many ranks: " + std::to_string(c.ranks) + " ranks cannot split " +
                  std::to_string(c.grid.ny - 2) + " interior columns with at least 2 each");
    }
    if (!columns.empty()) {
      if (c.balance == BalanceMode::off || c.balance == BalanceMode::best)
        throw Usage("--columns needs --balance static or diffusive");
      c.columns = parse_columns(columns);
      if (static_cast<int>(c.columns.size()) != c.ranks)
        throw Usage("--columns gives " + std::to_string(c.columns.size()) + " widths for " +
                    std::to_string(c.ranks) + " ranks");
    }
    if (!speeds.empty()) {
      c.speeds = SpeedSchedule::parse(speeds[0] == '@' ? read_speed_file(speeds.substr(1)) : speeds, c.ranks);
    }
    check_costs(c.cost);
    if (!speeds.empty() && c.speeds.segments().back().from_iteration > c.iterations) {
      throw Usage("--emulate-speeds: the segment @" +
                  std::to_string(c.speeds.segments().back().from_iteration) +
                  " starts after the last iteration (" + std::to_string(c.iterations) +
                  "): it would never take effect");
    }
    if (c.balance == BalanceMode::diffusive && c.settings.every > c.iterations) {
      throw Usage("--balance-every " + std::to_string(c.settings.every) + " is beyond the last iteration (" +
                  std::to_string(c.iterations) + "): the balancer would never run");
    }
    check_outputs(json_path, trace_path, overwrite);
    std::string command_line;
    for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);
    const RunIdentity run = run_identity(c, class_name, command_line);
    std::unique_ptr<TraceWriter> trace;
    if (!trace_path.empty()) trace = std::make_unique<TraceWriter>(trace_path, overwrite, run);

    try {
      validate(c.settings);
    } catch (const std::invalid_argument& e) {
      throw Usage(with_flag_names(e.what()));
    }
    const auto t0 = std::chrono::steady_clock::now();
    const SimResult r = simulate(c);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    if (trace) {
      trace->append(r.history, 1);
      trace->append_moves(r.moves);
      trace->commit();
    }
    const auto loads = r.history.loads();
    if (!quiet) {
      std::string spec = c.speeds.spec();
      if (spec.size() > 60) spec = spec.substr(0, 57) + "...";
      std::printf("lu-sim: %d ranks, grid %dx%dx%d, %d iterations, balance %s%s%s\n", c.ranks, c.grid.nx,
                  c.grid.ny, c.grid.nz, c.iterations, mode_name(c.balance),
                  c.speeds.active() ? ", speeds " : "", spec.c_str());
      std::printf(
          "modelled time %.6f s (%.6f s per iteration), balancing steps %d, boundary crossings %d, "
          "columns migrated %d\n",
          r.time, r.time / c.iterations, r.steps, r.moved_columns, r.migrated_columns);
      std::printf(
          "imbalance (compute max/mean) first %d iterations %.3f, last %d %.3f; model ran in %.3f s\n",
          c.settings.every, r.history.window_imbalance(0, c.settings.every), c.settings.every,
          r.history.window_imbalance(c.iterations - c.settings.every, c.iterations), wall);
      std::printf(
          "bottleneck ratio (max width/speed over the best partition's) first %.3f, worst after "
          "iteration 20 %.3f, final %.3f\n",
          r.bottleneck_ratio.front(), worst_from(r.bottleneck_ratio, 20), r.bottleneck_ratio.back());
      if (c.ranks <= 16) {
        std::printf("%6s %8s %12s %12s\n", "rank", "columns", "compute s", "wait s");
        for (int q = 0; q < c.ranks; ++q)
          std::printf("%6d %8d %12.6f %12.6f\n", q, loads[q].columns, loads[q].compute, loads[q].wait);
      }
    }
    if (!json_path.empty()) {
      const nlohmann::json j = report_json(run, c, r, wall, history);
      write_file_whole(json_path, j.dump(1) + "\n");  // aside, then renamed: never half a report
    }
    return 0;
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lu-sim: error: %s\n", e.what());
    return 2;
  }
}
