#include "lu/io/report.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "balance/diffusive_balancer.hpp"
#include "lu/io/decision_record.hpp"
#include "lu/isa.hpp"
#include "lu/mpi/messages.hpp"

namespace npblu {

bool RunReport::norms_finite() const {
  bool finite = std::isfinite(computed.xci);
  for (const double v : computed.xcr) finite = finite && std::isfinite(v);
  for (const double v : computed.xce) finite = finite && std::isfinite(v);
  return finite;
}

bool RunReport::successful() const {
  // A run that ended with a non-finite norm diverged: never a success, verified or not.
  const bool finished = iterations_run == run.iterations && norms_finite();
  return verification.performed ? verification.passed && finished : finished;
}

std::array<PhaseStats, PhaseTimers::kCount> reduce_phase_timers(const PhaseTimers& local, MPI_Comm comm) {
  constexpr int n = PhaseTimers::kCount;
  std::array<double, n> mins{}, maxs{}, sums{};
  MPI_Reduce(local.values().data(), mins.data(), n, MPI_DOUBLE, MPI_MIN, 0, comm);
  MPI_Reduce(local.values().data(), maxs.data(), n, MPI_DOUBLE, MPI_MAX, 0, comm);
  MPI_Reduce(local.values().data(), sums.data(), n, MPI_DOUBLE, MPI_SUM, 0, comm);
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::array<PhaseStats, n> stats{};
  for (int p = 0; p < n; ++p) stats[p] = {mins[p], maxs[p], sums[p] / size};
  return stats;
}

namespace {

// NPB's verification lines: each quantity against its reference, or the computed norms of a class U run.
std::string verification_section(const RunReport& r) {
  std::string s;
  if (r.verification.performed) {
    s += fmt::format(" Verification being performed for class {}\n", r.run.problem_class);
    s += fmt::format(" Accuracy setting for epsilon = {:20.13E}\n", r.verification.epsilon);
    s += fmt::format(" {:<8} {:>22} {:>22} {:>22}\n", "quantity", "computed", "reference", "relative diff");
    for (const auto& q : r.verification.checks) {
      s += fmt::format(" {:<8} {:22.13E} {:22.13E} {:22.13E}{}\n", q.name, q.computed, q.reference,
                       q.relative_difference, q.passed ? "" : "  FAILURE");
    }
  } else {
    s += " No reference values for this problem size (class U): verification not performed\n";
    for (int m = 0; m < 5; ++m) s += fmt::format(" xcr[{}] = {:22.13E}\n", m + 1, r.computed.xcr[m]);
    for (int m = 0; m < 5; ++m) s += fmt::format(" xce[{}] = {:22.13E}\n", m + 1, r.computed.xce[m]);
    s += fmt::format(" xci    = {:22.13E}\n", r.computed.xci);
  }
  // Why an unverified run reads UNSUCCESSFUL below, and what a verified one's FAILUREs come from.
  if (!r.norms_finite())
    s +=
        " The norms are not finite: the run diverged (its time step, --dt, may be too large for this grid)\n";
  return s;
}

// How a rank waited over the timed iterations: "spin", "sleep", or "sleep 40%" where it changed
// (1% to 99%: never a mixed record that reads as one of the pure ones; 0 < slept < iterations there).
std::string waited_by(int slept, int iterations) {
  if (slept == 0) return "spin";
  if (slept == iterations) return "sleep";
  return fmt::format("sleep {}%", std::clamp(std::lround(100.0 * slept / iterations), 1L, 99L));
}

// How the ranks were told to wait (--wait, auto resolved per rank), each policy with its count.
std::string waits_line(const std::vector<std::string>& waits) {
  std::vector<std::pair<std::string, int>> counts;
  for (const std::string& w : waits) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == w; });
    if (it == counts.end())
      counts.emplace_back(w, 1);
    else
      ++it->second;
  }
  std::string s = " Waiting for messages (--wait):";
  for (std::size_t i = 0; i < counts.size(); ++i)
    s += fmt::format("{} {} on {}", i > 0 ? "," : "", counts[i].first, counted(counts[i].second, "rank"));
  return counts.empty() ? "" : s + "\n";
}

// The share pools the balancer read at their mean core share (balance/share_pools), e.g.
// " Ranks 0,1,2 time-share cores as the scheduler places them: ..." ("" without pools).
std::string share_pools_line(const std::vector<int>& pools) {
  std::vector<std::vector<int>> members(pools.size());
  for (std::size_t r = 0; r < pools.size(); ++r)
    if (pools[r] >= 0) members[pools[r]].push_back(static_cast<int>(r));
  std::vector<std::string> groups;
  for (const std::vector<int>& pool : members)
    if (pool.size() > 1) groups.push_back(fmt::format("{}", fmt::join(pool, ",")));
  if (groups.empty()) return "";
  return fmt::format(
      " Ranks {} time-share cores as the scheduler places them: the balancer read {} at {} mean core share\n",
      fmt::join(groups, " and ranks "), groups.size() == 1 ? "them" : "each group",
      groups.size() == 1 ? "their" : "its");
}

// A balance-quality ratio, or "n/a" where a rank measured no compute.
std::string ratio_text(double ratio) { return std::isfinite(ratio) ? fmt::format("{:.4f}", ratio) : "n/a"; }

// The balancer, and for a diffusive run its steps and the balance over its first and last K iterations.
std::string balancer_line(const RunReport& r) {
  std::string s = fmt::format(" Balancer: {}", r.run.balance);
  if (r.run.balance == "diffusive" && r.history.iterations() > 0) {
    const auto& h = r.history;
    const int n = h.iterations();
    const int k = std::max(1, std::min(r.run.balance_every, n));
    const auto iterations = [](int count) { return counted(count, "iteration"); };
    // The moves' own time (each logged step's price, the slowest rank's), and the balancer's whole phase:
    // every decision's gather and arithmetic besides.
    double moves = 0.0;
    for (const DecisionRecord& d : r.decisions) moves += d.price_paid;
    s += fmt::format(
        " (every {}): {} moved {}, the moves {:.4f} s of the balancer's {:.4f} s; imbalance {:.4f} over the "
        "first {}, {:.4f} over the last {}; bottleneck / best {} and {}",
        r.run.balance_every == 1 ? std::string("iteration") : iterations(r.run.balance_every),
        counted(r.balance_steps, "step"), counted(r.moved_columns, "column"), moves,
        r.phases[static_cast<int>(Phase::migration)].max, h.window_imbalance(0, k), iterations(k),
        h.window_imbalance(n - k, n), k, ratio_text(h.window_bottleneck_ratio(0, k, r.max_columns)),
        ratio_text(h.window_bottleneck_ratio(n - k, n, r.max_columns)));
  }
  return s + "\n";
}

// The load table of the timed iterations, the imbalance and balance quality, and the balancer's line.
std::string load_balance_section(const RunReport& r) {
  std::string s;
  s += fmt::format("\n Load balance over the timed iterations (weights: {})\n", r.run.weight_source);
  s += fmt::format("   {:>5} {:>8} {:>12} {:>10} {:>12} {:>12}  {}\n", "rank", "columns", "weight", "speed",
                   "compute s", "wait s", "waited by");
  const std::vector<RankLoad> loads = r.history.loads();
  for (std::size_t p = 0; p < loads.size(); ++p) {
    const auto& l = loads[p];
    const double w = p < r.run.weights.size() ? r.run.weights[p] : 1.0;
    const double speed = r.emulation.speed(static_cast<int>(p), r.iterations_run);
    s += fmt::format("   {:>5} {:>8} {:>12.4g} {:>10.3f} {:>12.4f} {:>12.4f}  {}\n", p, l.columns, w, speed,
                     l.compute, l.wait, waited_by(l.slept_iterations, r.history.iterations()));
  }
  s += fmt::format("   imbalance factor max/mean compute = {:.4f}\n", r.imbalance());
  s += fmt::format(
      "   bottleneck / best whole-column partition = {} (at the speeds the ranks measured; 1: no fixed "
      "stripes could do better over the run, below 1 where the stripes moved with the speeds)\n",
      ratio_text(r.history.window_bottleneck_ratio(0, r.history.iterations(), r.max_columns)));
  // A rank that waited for its core (time-shared with other ranks or work) is measured slower the more
  // work its core's other ranks have: the best partition at such speeds is not one the stripes could reach.
  if (const double share = r.history.lowest_core_share(); share < kWholeCoreShare)
    s += fmt::format(
        "   (a rank had {:.0f}% of its core: speeds measured on shared cores depend on each other's "
        "work, so the ratio measures the run, not the stripes alone)\n",
        100.0 * share);
  s += waits_line(r.run.waits);
  s += balancer_line(r);
  if (!r.max_columns.empty())
    s += fmt::format(" Memory holds at most {} columns per rank (the balancer kept within them)\n",
                     fmt::join(r.max_columns, ","));
  s += share_pools_line(r.share_pools);
  return s;
}

}  // namespace

std::string format_report(const RunReport& r) {
  std::string s;
  auto line = [&](std::string_view label, const std::string& value) {
    s += fmt::format(" {:<16}= {:>24}\n", label, value);
  };
  s += "\n";
  s += verification_section(r);
  s += "\n LU Benchmark Completed.\n";
  line("Class", r.run.problem_class);
  line("Size", fmt::format("{:4}x{:4}x{:4}", r.run.grid.nx, r.run.grid.ny, r.run.grid.nz));
  line("Iterations", fmt::format("{}", r.iterations_run));
  line("Time in seconds", fmt::format("{:.2f}", r.seconds));
  line("Total processes", fmt::format("{}", r.run.ranks));
  line("Mop/s total", fmt::format("{:.2f}", r.mops));
  line("Mop/s/process", fmt::format("{:.2f}", r.mops / r.run.ranks));
  line("Operation type", "floating point");
  line("Verification", r.verification.performed ? (r.successful() ? "SUCCESSFUL" : "UNSUCCESSFUL")
                                                : (r.successful() ? "NOT PERFORMED" : "UNSUCCESSFUL"));
  line("Partition", fmt::format("{}", fmt::join(r.columns, ",")));
  line("Field checksum", r.field_checksum);
  line("Kernels (ISA)", isa_description(active_isa()));
  if (r.emulation.active()) {
    s += fmt::format(
        "\n EMULATED HETEROGENEITY: --emulate-speeds '{}' (ranks slowed by spinning; not a real "
        "heterogeneous run)\n",
        r.emulation.spec());
  }
  s += load_balance_section(r);
  s += fmt::format("\n Phase timers over {} ranks (seconds){:>12}{:>12}{:>12}\n", r.run.ranks, "min", "max",
                   "mean");
  for (int p = 0; p < PhaseTimers::kCount; ++p) {
    const auto& st = r.phases[p];
    s += fmt::format("   {:<32}{:12.4f}{:12.4f}{:12.4f}\n", PhaseTimers::name(static_cast<Phase>(p)), st.min,
                     st.max, st.mean);
  }
  return s;
}

namespace {

nlohmann::json verification_json(const VerificationResult& v) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& q : v.checks) {
    checks.push_back({{"name", q.name},
                      {"computed", q.computed},
                      {"reference", q.reference},
                      {"relative_difference", q.relative_difference},
                      {"passed", q.passed}});
  }
  return {{"epsilon", v.epsilon}, {"checks", checks}};
}

nlohmann::json timers_json(const std::array<PhaseStats, PhaseTimers::kCount>& phases) {
  nlohmann::json timers = nlohmann::json::object();
  for (int p = 0; p < PhaseTimers::kCount; ++p) {
    const auto& st = phases[p];
    timers[std::string(PhaseTimers::name(static_cast<Phase>(p)))] = {
        {"min", st.min}, {"max", st.max}, {"mean", st.mean}};
  }
  return timers;
}

// What the run computed and whether it verified.
void put_results(nlohmann::json& j, const RunReport& r) {
  j["iterations_run"] = r.iterations_run;
  j["time_s"] = r.seconds;
  j["mops"] = r.mops;
  j["mops_per_process"] = r.mops / r.run.ranks;
  j["verified"] = r.verification.performed && r.successful();
  j["verification_performed"] = r.verification.performed;
  j["successful"] = r.successful();
  j["xcr"] = r.computed.xcr;
  j["xce"] = r.computed.xce;
  j["xci"] = r.computed.xci;
  if (r.verification.performed) j["verification"] = verification_json(r.verification);
  j["field_checksum"] = r.field_checksum;
  j["timers"] = timers_json(r.phases);
}

}  // namespace

nlohmann::json balance_json(const RunHistory& history, std::span<const BalanceMove> moves,
                            std::span<const DecisionRecord> decisions, int steps, int moved_columns) {
  nlohmann::json j;
  j["balance_steps"] = steps;
  j["moved_columns"] = moved_columns;
  j["imbalance_by_iteration"] = history.imbalance_by_iteration();
  j["imbalance"] = history.window_imbalance(0, history.iterations());
  nlohmann::json list = nlohmann::json::array();
  for (const auto& m : moves)
    list.push_back({{"iteration", m.iteration}, {"boundary", m.boundary}, {"columns", m.columns}});
  j["balance_moves"] = list;
  j["decisions"] = decisions_json(decisions);
  nlohmann::json ranks = nlohmann::json::array();
  for (const auto& l : history.loads())
    ranks.push_back({{"columns", l.columns},
                     {"compute_s", l.compute},
                     {"wait_s", l.wait},
                     {"slept_iterations", l.slept_iterations}});
  j["rank_loads"] = ranks;
  return j;
}

nlohmann::json to_json(const RunReport& r) {
  nlohmann::json j;
  j["benchmark"] = "LU";
  put_identity(j, r.run);
  j["columns"] = r.columns;
  j["restarted_from"] = nullptr;
  if (const auto& from = r.restarted_from)
    j["restarted_from"] = {{"file", from->file},
                           {"at_iteration", from->at_iteration},
                           {"written_on_ranks", from->written_on_ranks}};
  put_results(j, r);
  nlohmann::json levels = nlohmann::json::array();
  for (const IsaLevel l : isa_levels_supported()) levels.push_back(isa_name(l));
  j["isa_supported"] = levels;
  j.update(balance_json(r.history, r.moves, r.decisions, r.balance_steps, r.moved_columns));
  // At the speeds the ranks measured (lu-sim's keys of the same name are at its modelled speeds).
  j["bottleneck_ratio"] = r.history.window_bottleneck_ratio(0, r.history.iterations(), r.max_columns);
  j["bottleneck_ratio_by_iteration"] = r.history.bottleneck_ratio_by_iteration(r.max_columns);
  j["max_columns"] = r.max_columns;
  j["share_pools"] = r.share_pools;
  j["history"] = history_json(r.history);
  return j;
}

}  // namespace npblu
