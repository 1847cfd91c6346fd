#pragma once
// Test-only fault injection for the exit statuses no honest input can reach
// (tests/exit_status_check.py). Read from the environment once per run; unset
// in any real run, where both functions do nothing.
//
//   NPBLU_TEST_FAULT=wrong-norms   the computed residual norms are scaled by
//                                  1 + 1e-6 before verification, as a wrong
//                                  field would make them: the run does not
//                                  verify (exit 1 on every rank)
//   NPBLU_TEST_FAULT=throw-on-rank-1  rank 1 alone throws after computing, as an
//                                  unforeseen local error would: one line and
//                                  MPI_Abort (status 3)
//   NPBLU_TEST_FAULT=available-memory=BYTES  every node reports BYTES of memory
//                                  available (lu/run/memory_check.hpp), so that
//                                  a small run is refused for memory
//   NPBLU_TEST_FAULT=sigterm-at=start|report|exit  every rank sends itself
//                                  SIGTERM as its session starts (before the
//                                  warm-up), while it builds the report (after
//                                  the last iteration) or after the run, before
//                                  MPI ends (the lu command), as a scheduler's
//                                  signal may come
#include <cstdint>
#include <optional>
#include <string_view>

#include "verify/verification.hpp"

namespace npblu {

/// The computed values as verification will see them (the fault applied, if any).
void apply_test_fault_to_norms(VerifiedQuantities& computed);

/// Throws std::runtime_error on rank 1 if that fault is asked for.
void apply_test_fault_on_rank(int rank);

/// Raises SIGTERM if that fault is asked for at `where` ("start", "report", "exit").
void apply_test_fault_signal(std::string_view where);

/// The bytes every node is to report available, if that fault is asked for.
std::optional<std::uint64_t> test_fault_available_memory();

}  // namespace npblu
