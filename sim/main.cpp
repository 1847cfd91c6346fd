// lu-sim: a model of an LU run on P columnwise stripes that drives the real
// balancer (see sim/simulation.hpp). Its command line (sim/sim_options.hpp)
// shares lu's options where they mean the same; the cost and network options
// calibrate the model.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "lu/io/output_files.hpp"
#include "lu/io/trace_writer.hpp"
#include "lu/mpi/agreement.hpp"  // UsageError
#include "lu/mpi/messages.hpp"
#include "sim/report_json.hpp"
#include "sim/sim_options.hpp"
#include "sim/simulation.hpp"

using namespace npblu;
using namespace npblu::sim;

namespace {

// The outputs, before simulating: never over a non-regular file, never one file twice.
void check_outputs(const SimCommandLine& cl) {
  std::vector<RunFile> files;
  if (!cl.json_path.empty()) {
    if (auto problem = check_report_path("--json", cl.json_path); !problem.empty()) throw UsageError(problem);
    files.push_back({"--json", cl.json_path, true});
  }
  if (!cl.trace_path.empty()) {
    if (auto problem = check_trace_path(cl.trace_path, cl.trace_overwrite); !problem.empty())
      throw UsageError(problem);
    files.push_back({"--trace", cl.trace_path, true});
  }
  if (auto problem = same_file_problem(files); !problem.empty()) throw UsageError(problem);
}

// The iteration after which a run counts as settled (the worst ratio after it).
constexpr int kSettled = 20;

double worst_from(const std::vector<double>& ratio, int first) {
  double worst = 0.0;
  for (std::size_t i = std::max(0, first); i < ratio.size(); ++i) worst = std::max(worst, ratio[i]);
  return worst;
}

// Six decimals, but a short number past a million seconds (--cost-rhs 1e300 gave 300 digits).
std::string seconds_text(double seconds) {
  char text[64];
  std::snprintf(text, sizeof text, seconds < 1e6 ? "%.6f" : "%.6g", seconds);
  return text;
}

void print_summary(const SimConfig& c, const SimResult& r, double wall) {
  std::string spec = c.speeds.spec();
  if (spec.size() > 60) spec = spec.substr(0, 57) + "...";
  std::printf("lu-sim: %s, grid %dx%dx%d, %s, balance %s%s%s\n", counted(c.ranks, "rank").c_str(), c.grid.nx,
              c.grid.ny, c.grid.nz, counted(c.iterations, "iteration").c_str(), mode_name(c.balance),
              c.speeds.active() ? ", speeds " : "", spec.c_str());
  if (!c.cores.empty()) {
    std::string cores;
    for (int core : c.cores) {
      if (!cores.empty()) cores += ',';
      cores += std::to_string(core);
    }
    std::printf("cores %s (equal numbers share a core; slice %g s)\n", cores.c_str(), c.core_slice);
  }
  if (c.unpinned.node_ranks > 0) {
    std::printf(
        "unpinned: nodes of %d ranks on %d cores, the scheduler moves a rank every %g s a node "
        "(slice %g s)\n",
        c.unpinned.node_ranks, c.unpinned.node_cores, c.unpinned.scheduler_period, c.core_slice);
  }
  if (!c.core_speeds.empty()) {
    std::printf("core speeds");
    for (std::size_t i = 0; i < c.core_speeds.size(); ++i)
      std::printf("%s%g", i ? "," : " ", c.core_speeds[i]);
    std::printf("\n");
  }
  if (!c.share_pools) std::printf("share pools off: every rank read at its own core share\n");
  // lu's words (its report's "N steps moved M columns"): a column crossing two boundaries counts twice;
  // the JSON's migrated_columns counts it once, as migration sends it.
  std::printf("modelled time %s s (%s s per iteration), %s moved %s (%s changed owner)\n",
              seconds_text(r.time).c_str(), seconds_text(r.time / c.iterations).c_str(),
              counted(r.steps, "balancing step").c_str(), counted(r.moved_columns, "column").c_str(),
              counted(r.migrated_columns, "column").c_str());
  const int window = std::min(c.settings.every, c.iterations);  // a short run has fewer
  std::printf("imbalance (compute max/mean) first %s %.3f, last %d %.3f; model ran in %.3f s\n",
              counted(window, "iteration").c_str(), r.history.window_imbalance(0, window), window,
              r.history.window_imbalance(c.iterations - window, c.iterations), wall);
  std::printf("bottleneck ratio (max width/speed over the best partition's) first %.3f, ",
              r.bottleneck_ratio.front());
  if (c.iterations > kSettled)
    std::printf("worst after iteration %d %.3f, ", kSettled, worst_from(r.bottleneck_ratio, kSettled));
  std::printf("final %.3f\n", r.bottleneck_ratio.back());
  if (c.ranks > 16) return;
  const auto loads = r.history.loads();
  std::printf("%6s %8s %12s %12s\n", "rank", "columns", "compute s", "wait s");
  for (int q = 0; q < c.ranks; ++q)
    std::printf("%6d %8d %12s %12s\n", q, loads[q].columns, seconds_text(loads[q].compute).c_str(),
                seconds_text(loads[q].wait).c_str());
}

// A line every `interval` seconds of the model's own run (lu's format, its
// time the model's wall clock): a time-shared model of hundreds of ranks runs
// for minutes.
IterationDone progress_lines(const SimCommandLine& cl) {
  if (cl.quiet || !(cl.progress_interval > 0.0)) return {};
  const auto start = std::chrono::steady_clock::now();
  return [start, last = 0.0, interval = cl.progress_interval,
          iterations = cl.config.iterations](int it) mutable {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed - last < interval || it == iterations) return;
    last = elapsed;
    std::printf(" iteration %6d / %d   elapsed %9.2f s (the model's run)\n", it, iterations, elapsed);
    std::fflush(stdout);
  };
}

int run(const SimCommandLine& cl, const std::string& command_line) {
  check_outputs(cl);
  const SimConfig& c = cl.config;
  const RunIdentity run = run_identity(c, cl.class_name, command_line);
  const auto t0 = std::chrono::steady_clock::now();
  const SimResult r = simulate(c, progress_lines(cl));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!std::isfinite(r.time))  // each value finite, their sums beyond a double
    throw UsageError(
        "the modelled time is not finite: --latency, --bandwidth, the --cost-* or the migration "
        "prices are beyond what a run can take");
  // Opened once the model ran: a run that fails leaves no trace file behind.
  if (!cl.trace_path.empty()) {
    TraceWriter trace(cl.trace_path, cl.trace_overwrite, run);
    trace.append(r.history, 1, r.bottleneck_ratio);
    trace.append_moves(r.moves);
    trace.commit();
  }
  if (!cl.quiet) print_summary(c, r, wall);
  if (!cl.json_path.empty()) {
    const nlohmann::json j = report_json(run, c, r, wall, cl.history);
    try {
      write_file_whole(cl.json_path, j.dump(1) + "\n");  // aside, then renamed: never half a report
    } catch (const std::exception& e) {
      throw std::runtime_error("--json: failed writing the JSON report: " + std::string(e.what()));
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const SimCommandLine cl = parse_sim_command_line(argc, argv);
    if (!cl.help.empty()) {
      std::cout << cl.help;
      return 0;
    }
    for (const std::string& w : cl.warnings) std::fprintf(stderr, "lu-sim: warning: %s\n", w.c_str());
    std::string command_line;
    for (int i = 0; i < argc; ++i) {
      if (i > 0) command_line += ' ';
      command_line += argv[i];
    }
    return run(cl, command_line);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lu-sim: error: %s\n", e.what());
    return 2;
  }
}
