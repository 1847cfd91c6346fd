#pragma once
// Column halo exchange between neighbouring stripes. Columns are contiguous
// in a Field5, so each direction is one message of `depth` whole columns.
#include "lu/field.hpp"
#include "lu/mpi/communicator.hpp"
#include "lu/mpi/request_wait.hpp"

namespace npblu {

struct ExchangeTimes {
  double total = 0.0;  // seconds in the whole exchange
  double wait = 0.0;   // of which blocked in MPI_Waitall
};

/// Fills the `depth` stored columns on each side of `owned` from the
/// neighbouring stripes and sends ours to them. Both neighbours must own at
/// least `depth` columns.
ExchangeTimes halo_exchange(Field5& f, ColumnRange owned, int depth, const Communicator& comm,
                            WaitMode wait = WaitMode::spin);

}  // namespace npblu
