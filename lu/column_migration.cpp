#include "lu/column_migration.hpp"

#include "lu/column_mover.hpp"
#include "lu/message_tags.hpp"

namespace npblu {

Field5 migrate_columns(const Field5& old, const Partition& from, const Partition& to, const GridSize& g,
                       int halo, const StripeComm& sc) {
  Field5 next(g.nx, g.nz, stored_columns(g, to[sc.rank], halo));
  // Whatever we already stored (owned or halo, including the fixed boundary
  // columns) and still store is kept; the rest of `next` stays zero.
  const MovedArray field{reinterpret_cast<const std::byte*>(old.data()), old.columns(),
                         reinterpret_cast<std::byte*>(next.data()), next.columns(),
                         next.column_stride() * sizeof(double)};
  move_columns({&field, 1}, from, to, sc.comm, kTagColumnMigration);
  return next;
}

}  // namespace npblu
