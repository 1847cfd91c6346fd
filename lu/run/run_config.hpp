#pragma once
// The typed run configuration: the problem, where the stripes go, the
// balancer, the speed emulation and the outputs. The lu command line
// (options.cpp) and the C API (interop/c/npblu_c.cpp) both fill it through the
// setters below, so both accept and refuse exactly the same things.
//
// Every input is validated in three stages, each message naming the option
// and the problem:
//  1. a value, when it is set (set_option: option_table.cpp; set_class,
//     set_size, ...: run_config.cpp);
//  2. the combination of options, before a run (validate: run_config.cpp);
//  3. what depends on the rank count (validate_for_ranks), and the output
//     paths, probed by rank 0 (run_files.hpp: probe_outputs), at the start of a run.
#include <filesystem>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "balance/diffusive_balancer.hpp"
#include "balance/weights.hpp"
#include "lu/grid.hpp"
#include "lu/io/output_files.hpp"
#include "lu/mpi/agreement.hpp"  // UsageError
#include "lu/mpi/request_wait.hpp"
#include "lu/run/option_values.hpp"  // option_int, option_number
#include "lu/speed_emulation.hpp"
#include "verify/class_table.hpp"

namespace npblu {

/// Smallest number of points per direction: the boundary stencils of the
/// fourth-order dissipation (two points in from each side) must not overlap.
inline constexpr int kMinimumGridPoints = 6;

enum class BalanceMode { off, static_stripes, diffusive };
/// "off", "static", "diffusive"
std::string to_string(BalanceMode mode);

/// The problem as given: a class, and/or explicit values overriding it.
struct ProblemSpec {
  std::optional<char> problem_class;
  std::optional<GridSize> size;
  std::optional<int> iterations;
  std::optional<double> dt;
};

/// The problem to solve (resolve_problem).
struct Problem {
  char problem_class = 'U';  // tabulated class, or 'U' for custom
  GridSize grid;
  int iterations = 0;
  double dt = 0.0;
  std::optional<ReferenceValues> reference;  // absent for class U
};

struct PlacementConfig {
  WeightSpec weights;        // --weights (equal by default)
  std::vector<int> columns;  // --columns: explicit widths per rank, if given
  // What `columns` came from, as reports name it: --columns, or a restart's
  // checkpoint (the stripes its run ended on, continued on as many ranks).
  std::string columns_source = "explicit --columns";
  int calibration_iterations = 5;
  bool check_memory = true;  // --memory-check: refuse stripes a node's memory cannot hold

  /// Where the stripes come from, as the header, the load table and the JSON name it: the columns' source
  /// where columns are given, else the weights'.
  [[nodiscard]] std::string source() const { return columns.empty() ? weights.describe() : columns_source; }
};

struct BalanceConfig {
  BalanceMode mode = BalanceMode::static_stripes;
  BalancerSettings diffusive;  // every, threshold, damping: only for BalanceMode::diffusive
};

/// How the pipeline talks: how a rank waits for messages, and how many k
/// planes go in one message (the same result either way).
struct PipelineConfig {
  WaitMode wait = WaitMode::automatic;
  int planes_per_message = 1;
};

struct OutputConfig {
  std::filesystem::path json;   // empty: no JSON report
  std::filesystem::path trace;  // empty: no trace
  bool trace_overwrite = false;
  int trace_flush_every = 10;
  bool quiet = false;
  double progress_interval = 5.0;  // seconds between progress lines
};

/// Checkpoint and restart (README, "Checkpoint and restart").
struct CheckpointConfig {
  std::filesystem::path path;     // --checkpoint: written every `every` iterations and on SIGTERM/SIGINT
  int every = 0;                  // --checkpoint-every (0: on a signal only)
  std::filesystem::path restart;  // --restart: continue from this checkpoint
  bool overwrite = false;         // --checkpoint-overwrite: replace a checkpoint this run does not continue
};

struct RunConfig {
  ProblemSpec problem;
  PlacementConfig placement;
  BalanceConfig balance;
  SpeedSchedule emulation;  // inactive unless --emulate-speeds
  /// --emulate-speeds @FILE: read by rank 0 when the run starts (it needs the
  /// rank count), then `emulation` as if given on the command line.
  std::filesystem::path emulation_file;
  PipelineConfig pipeline;
  OutputConfig output;
  CheckpointConfig checkpoint;
  /// Options set explicitly (for options that mean something in one mode only).
  std::set<std::string, std::less<>> given;
};

/// One settable option: its name (without dashes), whether it is a flag,
/// the value's name and a help line. The command line registers these.
struct OptionInfo {
  std::string_view name;
  std::string_view short_name;  // "" or one letter
  bool flag;
  std::string_view value_name;
  std::string_view help;
};
std::span<const OptionInfo> option_table();

/// One option's setting as every rank of one run must agree on it.
struct OptionSetting {
  std::string_view name;
  std::string text;  // "" when not set; for a file, whether one is given (files are rank 0's)
  bool operator==(const OptionSetting&) const = default;
};
/// Every option's setting, in the table's order: the C API compares them
/// across ranks before a run, so an option added to the table is agreed on.
std::vector<OptionSetting> option_settings(const RunConfig& config);

/// Sets option `name` (without dashes: "balance", "emulate-speeds", ...) from
/// its text, converted and checked once, here. Flags take "", 1/0,
/// true/false, yes/no or on/off. Throws UsageError (unknown name, bad value);
/// `config` is then unchanged.
void set_option(RunConfig& config, std::string_view name, std::string_view value);
/// Typed setters, checked the same way.
void set_class(RunConfig& config, char problem_class);
/// The class by its name: one letter ("SX" and "" are refused whole, never read as their first letter).
void set_class_name(RunConfig& config, std::string_view name);
void set_size(RunConfig& config, GridSize size);
void set_iterations(RunConfig& config, int iterations);
void set_dt(RunConfig& config, double dt);

/// The problem from the class and overrides; throws UsageError when none is
/// given or a custom size lacks iterations or dt. Anything that changes a
/// tabulated problem makes it class U.
Problem resolve_problem(const ProblemSpec& spec);
/// "class W (33x33x33, 300 iterations, dt 0.0015)", as messages name a problem.
std::string describe_problem(char problem_class, const GridSize& g, int iterations, double dt);

/// Stage 2: the options together (a problem given, no conflicting placement,
/// no option of another mode). Throws UsageError. With --restart and no
/// problem option the problem is the checkpoint's, known only once the file
/// is read: the Problem returned is then empty (iterations 0).
Problem validate(const RunConfig& config);
/// validate's check of the options that mean something in one mode only
/// (--balance-every without --balance diffusive, --trace-overwrite without
/// --trace, ...): a given one outside its mode throws UsageError. lu-sim
/// calls it too, with its modes mapped to lu's, for the options they share.
void refuse_options_outside_their_mode(const RunConfig& config);
/// Whether the problem is to be taken from the --restart checkpoint (no
/// class, and not all of --size, --iterations and --dt: what is missing is
/// the checkpoint's, and what is given must agree with it).
bool problem_from_checkpoint(const RunConfig& config);

/// A grid whose column lu can send: messages count whole columns
/// (lu/mpi/message_units.hpp), so one column's doubles must fit an int.
/// lu-sim refuses what lu would. Throws UsageError.
void check_column_fits_a_message(const GridSize& grid);

/// Stage 3: what depends on the rank count (too many ranks, one width, weight
/// or speed per rank, widths tiling the interior). Throws UsageError.
void validate_for_ranks(const RunConfig& config, const Problem& problem, int ranks);

/// Stage 3: settings that could have no effect in this run are refused
/// (UsageError): --checkpoint-every with no multiple before the last
/// iteration, an --emulate-speeds segment @N after it, --balance-every
/// with no multiple after `iterations_done` (a restart's starting point)
/// and before the last iteration (the steps of both follow multiples counted
/// from the run's first iteration).
void check_effect(const RunConfig& config, const Problem& problem, int iterations_done);

/// Stage 3's warnings: settings that will have no effect in this run, said
/// rather than refused (a run on 1 rank with a job script's options should
/// still run): --balance diffusive whose default cadence comes after the last
/// iteration, or on 1 rank (no neighbour to give columns to). Empty when none.
std::vector<std::string> effect_warnings(const RunConfig& config, const Problem& problem, int iterations_done,
                                         int ranks);

}  // namespace npblu
