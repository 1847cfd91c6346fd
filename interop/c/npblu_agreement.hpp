#pragma once
// What every collective call of the C API (and so of the Fortran bindings)
// does first: checks that the communicator it is given is one, and that
// every rank made the same call with the same arguments. Internal to the
// library. A call that differs on one rank (another call, another value, a
// class set on rank 0 only) would otherwise pair with an unrelated
// collective and hang or corrupt memory; here every rank meets in one small
// all-reduce of a digest and refuses alike, naming the rank that differs.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "lu/mpi/communicator.hpp"
#include "lu/run/run_config.hpp"

namespace npblu::c_api {

/// (lu/mpi/communicator.hpp)
using npblu::communicator_problem;

/// Collective over `comm`: returns when every rank called `call` with the
/// same `arguments` (any canonical text of them); otherwise throws
/// npblu::UsageError on every rank with the same message, naming the
/// lowest rank that differs from rank 0 and the calls made. One
/// MPI_Allreduce of two 64-bit integers when all agree.
void agree_call(MPI_Comm comm, std::string_view call, std::string_view arguments);

/// A canonical text of everything in `config` (the arguments of
/// npblu_start and npblu_run): the same on two ranks iff their runs are the same.
std::string config_arguments(const npblu::RunConfig& config);

/// 64-bit FNV-1a of `text` (the digest agree_call compares).
std::uint64_t text_digest(std::string_view text);

}  // namespace npblu::c_api
