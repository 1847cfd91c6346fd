#pragma once
// Moving owned columns between ranks when the partition changes. Columns
// are contiguous in a Field5, so each piece that changes owner is one
// message of whole columns.
#include "balance/partition.hpp"
#include "lu/field.hpp"
#include "lu/grid.hpp"
#include "lu/stripe_comm.hpp"

namespace npblu {

/// Collective. Returns a field stored on stored_columns(g, to[rank], halo)
/// whose columns owned under `to` hold the values they held under `from`
/// (wherever they lived); every other stored column is copied from `old`
/// where it had it and is otherwise zero (the caller refreshes halos).
Field5 migrate_columns(const Field5& old, const Partition& from, const Partition& to, const GridSize& g,
                       int halo, const StripeComm& sc);

}  // namespace npblu
