// lu: the NPB LU benchmark on columnwise stripes, any number of MPI ranks.
#include <mpi.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "lu/mpi/messages.hpp"
#include "lu/mpi/mpi_program.hpp"
#include "lu/run/benchmark.hpp"
#include "lu/run/checkpoint_schedule.hpp"
#include "lu/run/options.hpp"
#include "lu/run/test_faults.hpp"

namespace {

constexpr int kExitFailed = 1;       // ran, but did not verify
constexpr int kExitUsage = 2;        // bad input, refused before computing
constexpr int kExitRunFailed = 3;    // failed after computing started (a trace or report write)
constexpr int kExitInterrupted = 4;  // stopped by SIGTERM/SIGINT after writing a checkpoint (--checkpoint)

std::string command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) s += ' ';
    s += argv[i];
  }
  return s;
}

bool is_root() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank == 0;
}

/// The one way out with an error: one line on stderr, from rank 0 (every rank
/// holds the same error and returns the same status).
int exit_with(const std::exception& e, int status) {
  if (is_root()) npblu::print_line_to_stderr("lu: error: ", e.what());
  return status;
}

/// One rank alone failed, and the others may be waiting for it in a
/// collective: one line naming the rank, then end them all rather than hang.
[[noreturn]] void abort_job(const std::string& message) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // One write, so that the launcher's own abort message cannot land inside the line.
  npblu::print_line_to_stderr("lu: error: ", message + " (rank " + std::to_string(rank) + ")");
  // The launcher forwards our stderr through a pipe, and MPICH's hydra kills the
  // job on MPI_Abort without draining it: the line was lost in 5 of 40 runs.
  // A failed job can spare the launcher a moment to read it (0 in 100 with it).
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  MPI_Abort(MPI_COMM_WORLD, kExitRunFailed);
  std::abort();  // MPI_Abort does not return; should an implementation, do not go on
}

int run(int argc, char** argv) {
  // Every rank parses the same arguments and reaches the same verdict.
  const npblu::ParsedCommandLine parsed = npblu::parse_command_line(argc, argv);
  if (!parsed.options) {
    if (is_root()) std::cout << parsed.help;
    return 0;
  }
  const auto outcome = npblu::run_benchmark(*parsed.options, MPI_COMM_WORLD, &std::cout,
                                            command_line(argc, argv), npblu::AfterRun::process_exits);
  npblu::apply_test_fault_signal("exit");
  return outcome.successful ? 0 : kExitFailed;
}

}  // namespace

int main(int argc, char** argv) {
  // A write past the file size limit (ulimit -f) then fails with EFBIG and
  // is reported like a full disk, rather than killing this rank alone.
  std::signal(SIGXFSZ, SIG_IGN);
  const npblu::MpiSession mpi(&argc, &argv);
  try {
    return run(argc, argv);
  } catch (const npblu::RunInterrupted& e) {
    if (is_root()) npblu::print_line_to_stderr("lu: ", e.what());
    return kExitInterrupted;
  } catch (const npblu::UsageError& e) {
    return exit_with(e, kExitUsage);
  } catch (const npblu::RunFailure& e) {
    return exit_with(e, kExitRunFailed);
  } catch (const npblu::RunError& e) {
    return exit_with(e, kExitUsage);
  } catch (const std::exception& e) {
    abort_job(npblu::one_line_message(e.what()));  // not agreed: this rank alone failed
  } catch (...) {
    abort_job("unknown exception");
  }
}
