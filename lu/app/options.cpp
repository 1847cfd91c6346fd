#include "lu/app/options.hpp"

#include <CLI/CLI.hpp>
#include <cmath>
#include <sstream>

#include "balance/parse_number.hpp"

namespace npblu {

std::vector<int> parse_int_list(const std::string& text, const std::string& what) {
  std::vector<int> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const std::optional<int> v = parse_int(item);
    if (!v) throw UsageError(what + ": '" + text + "' is not a comma-separated list of integers");
    values.push_back(*v);
  }
  if (values.empty() || text.back() == ',') {
    throw UsageError(what + ": '" + text + "' is not a comma-separated list of integers");
  }
  return values;
}

ParsedCommandLine parse_command_line(int argc, const char* const* argv) {
  CLI::App app{"NPB LU (SSOR solver for the 3-D compressible Navier-Stokes equations) on columnwise stripes"};
  app.name("lu");
  std::string class_name;
  std::string class_positional;
  std::vector<int> size;
  std::optional<int> iterations;
  std::optional<double> dt;
  std::string columns;
  RunOptions opts;

  app.add_option("--class,-c", class_name, "Problem class: S W A B C D E F");
  app.add_option("class", class_positional, "Problem class, positionally (lu A)");
  app.add_option("--size", size, "Custom grid NX NY NZ (class U, unverified)")->expected(3);
  app.add_option("--iterations", iterations, "Number of SSOR iterations (overrides the class)");
  app.add_option("--dt", dt, "Time step (overrides the class)");
  app.add_option("--columns", columns, "Column widths per rank, e.g. 3,5,2 (must sum to NY-2)");
  app.add_option("--weights", opts.weights,
                 "Stripe weights: equal (default), a list 2.25,1,1, @FILE, mflops, bogomips or calibrate");
  app.add_option("--emulate-speeds", opts.emulate_speeds,
                 "Emulated relative speed per rank, e.g. 1,0.444 or '1,1;@80:1,0.5' (from iteration 80 on)");
  app.add_option("--calibration-iterations", opts.calibration_iterations,
                 "SSOR iterations timed by --weights calibrate (default 5)");
  app.add_option(
         "--balance", opts.balance,
         "off (equal stripes), static (stripes from --weights/--columns; default) or diffusive (adapt at "
         "run time from MPI wait times)")
      ->check(CLI::IsMember({"off", "static", "diffusive"}));
  app.add_option("--balance-every", opts.balance_every, "Diffusive balancing every K iterations (default 5)");
  app.add_option("--balance-threshold", opts.balance_threshold,
                 "Wait-time difference between neighbours, as a fraction of the window, that moves columns "
                 "(default 0.02)");
  app.add_option("--balance-damping", opts.balance_damping,
                 "Fraction of the equalising shift applied per step, 0 < a <= 1 (default 1)");
  app.add_option("--wait", opts.wait,
                 "How a rank waits for messages: spin (in MPI_Wait), sleep (poll, sleep between polls) or "
                 "auto (default: spin, sleep while the rank's core is shared with other work)")
      ->check(CLI::IsMember({"spin", "sleep", "auto"}));
  app.add_option("--planes-per-message", opts.planes_per_message,
                 "k planes per pipeline message in the sweeps (default 1; fewer hand-offs, same result)");
  app.add_option("--trace", opts.trace_path, "Write a partition trace (HDF5) to this file");
  app.add_flag("--trace-overwrite", opts.trace_overwrite, "Replace an existing trace file");
  app.add_option("--trace-flush", opts.trace_flush_every, "Flush the trace every N iterations (default 10)");
  app.add_option("--json", opts.json_path, "Write the report as JSON to this file");
  app.add_flag("--quiet,-q", opts.quiet, "No progress lines");
  app.add_option("--progress-interval", opts.progress_interval, "Seconds between progress lines (default 5)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return {std::nullopt, app.help()};
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }

  if (!class_name.empty() && !class_positional.empty() && class_name != class_positional) {
    throw UsageError("class given twice: '" + class_name + "' and '" + class_positional + "'");
  }
  if (class_name.empty()) class_name = class_positional;

  if (!class_name.empty()) {
    const auto pc = class_name.size() == 1 ? find_problem_class(class_name[0]) : std::nullopt;
    if (!pc) throw UsageError("unknown class '" + class_name + "' (expected one of S W A B C D E F)");
    opts.problem_class = pc->name;
    opts.grid = {pc->n, pc->n, pc->n};
    opts.iterations = pc->itmax;
    opts.dt = pc->dt;
    opts.reference = pc->reference;
  } else if (size.empty()) {
    throw UsageError("no problem given: name a class (S W A B C D E F) or give --size NX NY NZ");
  }

  if (!size.empty()) {
    for (int n : size) {
      if (n < kMinimumGridPoints) {
        throw UsageError("--size " + std::to_string(size[0]) + " " + std::to_string(size[1]) + " " +
                         std::to_string(size[2]) + ": every dimension needs at least " +
                         std::to_string(kMinimumGridPoints) + " points");
      }
    }
    opts.grid = {size[0], size[1], size[2]};
    if (class_name.empty() && (!iterations || !dt)) {
      throw UsageError("a custom --size needs --iterations N and --dt X");
    }
  }
  if (iterations) {
    if (*iterations < 1)
      throw UsageError("--iterations must be at least 1, got " + std::to_string(*iterations));
    opts.iterations = *iterations;
  }
  if (dt) {
    if (!std::isfinite(*dt) || *dt <= 0.0) throw UsageError("--dt must be a positive number");
    opts.dt = *dt;
  }
  // Anything that changes the tabulated problem makes it a custom run.
  if (opts.reference) {
    const auto pc = find_problem_class(opts.problem_class);
    if (opts.grid != GridSize{pc->n, pc->n, pc->n} || opts.iterations != pc->itmax || opts.dt != pc->dt) {
      opts.problem_class = 'U';
      opts.reference.reset();
    }
  }
  if (!columns.empty()) opts.columns = parse_int_list(columns, "--columns");
  if (!opts.columns.empty() && opts.weights != "equal") {
    throw UsageError("--columns and --weights both place the stripes: give one of them");
  }
  if (opts.balance == "off" && (opts.weights != "equal" || !opts.columns.empty())) {
    throw UsageError("--balance off uses equal stripes: drop --weights/--columns or use --balance static");
  }
  if (opts.planes_per_message < 1) throw UsageError("--planes-per-message must be at least 1");
  if (opts.trace_flush_every < 1) throw UsageError("--trace-flush must be at least 1");
  if (opts.calibration_iterations < 1) throw UsageError("--calibration-iterations must be at least 1");
  if (!(opts.progress_interval >= 0.0)) throw UsageError("--progress-interval must be >= 0");
  return {opts, {}};
}

}  // namespace npblu
