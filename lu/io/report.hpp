#pragma once
// The end-of-run report: NPB-style text for people, JSON for tools.
#include <mpi.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "balance/balancer_session.hpp"
#include "lu/grid.hpp"
#include "lu/io/run_history.hpp"
#include "lu/io/run_identity.hpp"
#include "lu/phase_timers.hpp"
#include "lu/speed_emulation.hpp"
#include "verify/verification.hpp"

namespace npblu {

struct PhaseStats {
  double min = 0.0, max = 0.0, mean = 0.0;  // over ranks, seconds
};

/// Where a restarted run continued from (--restart): the checkpoint, its
/// iteration and the ranks that wrote it.
struct RestartOrigin {
  std::string file;
  int at_iteration = 0;
  int written_on_ranks = 0;
};

struct RunReport {
  RunIdentity run;          // what ran, where and how (the JSON report's identity keys)
  SpeedSchedule emulation;  // run.emulated_speeds, parsed: inactive unless --emulate-speeds
  int iterations_run = 0;   // of the whole run, a restart's included
  std::optional<RestartOrigin> restarted_from;  // none: the run started at iteration 0
  std::vector<int> columns;                     // final stripe width per rank
  double seconds = 0.0;
  double mops = 0.0;
  VerifiedQuantities computed;
  VerificationResult verification;
  std::string field_checksum;
  std::array<PhaseStats, PhaseTimers::kCount> phases{};
  int balance_steps = 0;  // balancing steps that moved columns
  int moved_columns = 0;  // columns moved, summed over steps and boundaries
  // Per rank, the most columns its memory let the balancer give it (empty: no limit).
  std::vector<int> max_columns;
  // Per rank its share pool (balance/share_pools: the lowest rank of the
  // pool, -1 for none; empty: no pools), as the balancer read them.
  std::vector<int> share_pools;
  RunHistory history;                     // per iteration and rank
  std::vector<BalanceMove> moves;         // every balancing move
  std::vector<DecisionRecord> decisions;  // the balancer's log: each step that moved columns (this run's)

  /// max(compute) / mean(compute) over ranks for the whole run: 1 is perfect balance.
  [[nodiscard]] double imbalance() const { return history.window_imbalance(0, history.iterations()); }

  /// Verified, or a custom run that finished.
  [[nodiscard]] bool successful() const;
  /// Every computed norm is finite (not so: the run diverged).
  [[nodiscard]] bool norms_finite() const;
};

/// Min / max / mean of each phase over ranks (collective; meaningful on rank 0).
std::array<PhaseStats, PhaseTimers::kCount> reduce_phase_timers(const PhaseTimers& local, MPI_Comm comm);

std::string format_report(const RunReport& r);
nlohmann::json to_json(const RunReport& r);

// The parts of the JSON report that lu-sim's shares (sim/report_json.cpp).
/// "balance_steps", "moved_columns", "imbalance_by_iteration", "imbalance",
/// "balance_moves", "decisions" (lu/io/decision_record), "rank_loads".
nlohmann::json balance_json(const RunHistory& history, std::span<const BalanceMove> moves,
                            std::span<const DecisionRecord> decisions, int steps, int moved_columns);

}  // namespace npblu
