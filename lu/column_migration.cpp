#include "lu/column_migration.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "lu/message_tags.hpp"
#include "lu/message_units.hpp"

namespace npblu {

namespace {

ColumnRange intersect(ColumnRange a, ColumnRange b) {
  return {std::max(a.begin, b.begin), std::max(std::max(a.begin, b.begin), std::min(a.end, b.end))};
}

}  // namespace

Field5 migrate_columns(const Field5& old, const Partition& from, const Partition& to, const GridSize& g,
                       int halo, const StripeComm& sc) {
  const ColumnRange old_owned = from[sc.rank];
  const ColumnRange new_owned = to[sc.rank];
  Field5 next(g.nx, g.nz, stored_columns(g, new_owned, halo));
  const ColumnDatatype column(next);  // counts are in whole columns: no int overflow at any class

  std::vector<MPI_Request> requests;
  for (int q = 0; q < sc.size; ++q) {
    if (q == sc.rank) continue;
    const ColumnRange incoming = intersect(from[q], new_owned);
    if (!incoming.empty()) {
      requests.emplace_back();
      check_mpi(MPI_Irecv(next.column(incoming.begin), incoming.width(), column.get(), q, kTagColumnMigration,
                          sc.comm, &requests.back()),
                "migration receive");
    }
    const ColumnRange outgoing = intersect(old_owned, to[q]);
    if (!outgoing.empty()) {
      requests.emplace_back();
      check_mpi(MPI_Isend(old.column(outgoing.begin), outgoing.width(), column.get(), q, kTagColumnMigration,
                          sc.comm, &requests.back()),
                "migration send");
    }
  }
  // Whatever we already stored (owned or halo, including the fixed boundary
  // columns) and still store is copied locally.
  const ColumnRange kept = intersect(old.columns(), next.columns());
  for (int j = kept.begin; j < kept.end; ++j) {
    if (new_owned.contains(j) && !old_owned.contains(j)) continue;  // arrives from its old owner
    std::memcpy(next.column(j), old.column(j), next.column_stride() * sizeof(double));
  }
  check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
            "migration wait");
  return next;
}

}  // namespace npblu
