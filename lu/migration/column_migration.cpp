#include "lu/migration/column_migration.hpp"

#include <cstring>

#include "lu/mpi/column_mover.hpp"
#include "lu/mpi/message_tags.hpp"

namespace npblu {

namespace {

std::byte* bytes(double* p) { return reinterpret_cast<std::byte*>(p); }

/// Zeroes the columns of `f` stored now but neither before (`old_stored`)
/// nor received (owned now): new halo columns, zero as in a fresh field.
void zero_new_columns(Field5& f, ColumnRange old_stored, ColumnRange owned) {
  const ColumnRange c = f.columns();
  for (int j = c.begin; j < c.end; ++j) {
    if (!old_stored.contains(j) && !owned.contains(j))
      std::memset(f.column(j), 0, f.column_stride() * sizeof(double));
  }
}

/// Moves one field: in place while the new columns fit in its storage,
/// otherwise into new storage with headroom (kept columns copied once).
void migrate_field(Field5& f, ColumnRange next, const Partition& from, const Partition& to, const GridSize& g,
                   const Communicator& comm, WaitMode wait) {
  const ColumnRange limit{0, g.ny};
  const ColumnRange old_stored = f.columns();
  const std::size_t column_bytes = f.column_stride() * sizeof(double);
  if (f.has_room_for(next)) {
    const MovedArray in_place{bytes(f.column(old_stored.begin)), old_stored, bytes(f.column(next.begin)),
                              next, column_bytes};
    move_columns({&in_place, 1}, from, to, comm, kTagColumnMigration, wait);
    f.set_columns(next);
  } else {
    Field5 grown = Field5::uninitialized(g.nx, g.nz, next, f.capacity_for(next, limit));
    const MovedArray moved{reinterpret_cast<const std::byte*>(f.data()), old_stored, bytes(grown.data()),
                           next, column_bytes};
    move_columns({&moved, 1}, from, to, comm, kTagColumnMigration, wait);
    f = std::move(grown);
  }
  zero_new_columns(f, old_stored, to[comm.rank()]);
  f.release_spare(limit);
}

}  // namespace

void migrate_fields(std::span<const MigratedField> fields, const Partition& from, const Partition& to,
                    const GridSize& g, const Communicator& comm, WaitMode wait) {
  // One field at a time: a field that outgrows its storage exists twice
  // only while it moves, never two fields at once.
  for (const MigratedField& m : fields)
    migrate_field(*m.field, stored_columns(g, to[comm.rank()], m.halo), from, to, g, comm, wait);
}

}  // namespace npblu
