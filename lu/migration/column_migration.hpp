#pragma once
// Moving owned columns between ranks when the partition changes. Columns
// are contiguous in a Field5, so each piece that changes owner is one
// message of whole columns. A field grows and shrinks at its edges in its
// own storage (lu/field.hpp): a step costs the columns that cross a stripe
// boundary, not a rebuild of the stripe.
#include <span>

#include "balance/partition.hpp"
#include "lu/field.hpp"
#include "lu/grid.hpp"
#include "lu/mpi/communicator.hpp"
#include "lu/mpi/request_wait.hpp"

namespace npblu {

/// A field of the solver and the depth of its halo.
struct MigratedField {
  Field5* field = nullptr;
  int halo = 0;
};

/// Collective. Afterwards each field stores stored_columns(g, to[rank],
/// halo); its columns owned under `to` hold the values they held under
/// `from` (wherever they lived); every other stored column keeps its value
/// where the field stored it before and is otherwise zero (the caller
/// refreshes halos). Kept columns stay where they are unless the field
/// outgrows its capacity: then it moves, once, to storage with headroom.
/// Spare storage past the field's bound is handed back (Field5::release_spare).
/// Messages complete the way `wait` says (move_columns).
void migrate_fields(std::span<const MigratedField> fields, const Partition& from, const Partition& to,
                    const GridSize& g, const Communicator& comm, WaitMode wait = WaitMode::spin);

}  // namespace npblu
