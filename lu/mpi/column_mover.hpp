#pragma once
// Moving whole columns of any arrays between ranks when the partition
// changes: the one migration implementation, used by the solver's fields
// (lu/column_migration) and by callers' own arrays (interop's C API).
// Knows nothing of what a column holds: a column is column_bytes bytes,
// contiguous, and column j of an array lives at data + (j - stored.begin) *
// column_bytes.
#include <mpi.h>

#include <cstddef>
#include <span>

#include "balance/partition.hpp"
#include "lu/mpi/communicator.hpp"
#include "lu/mpi/request_wait.hpp"

namespace npblu {

/// One array before and after a partition change.
struct MovedArray {
  const std::byte* old_data = nullptr;  // stores global columns old_stored
  ColumnRange old_stored{};
  std::byte* new_data = nullptr;  // stores global columns new_stored
  ColumnRange new_stored{};
  std::size_t column_bytes = 0;  // one column; any size (no MPI int count is ever a byte count)
};

/// Collective over `comm` (ranks in partition order). For every array, each
/// column this rank owns under `to` arrives, bitwise, from its owner under
/// `from` (one message per array per pair of ranks, on `tag`, whatever the
/// number of hops between them). Every other column stored in both old and
/// new storage is copied locally (halo and fixed boundary columns keep their
/// values); new columns stored nowhere before are left untouched. Distinct
/// arrays must not overlap. One array's old and new storage are either
/// disjoint or one buffer in which every column has one address (old_data
/// and new_data point at their first columns in it): an in-place move, where
/// a stripe grows and shrinks at its edges, kept columns are not copied and
/// only the columns that change owner are touched. The messages complete
/// the way `wait` says (on a core shared with a peer rank under a library
/// that keeps the core while it polls, spinning would hold up the peer this
/// rank waits for by a time slice). Throws std::runtime_error on an MPI
/// failure (check_mpi).
void move_columns(std::span<const MovedArray> arrays, const Partition& from, const Partition& to,
                  const Communicator& comm, int tag, WaitMode wait = WaitMode::spin);

}  // namespace npblu
