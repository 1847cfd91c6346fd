#include "lu/halo_exchange.hpp"

#include <algorithm>

#include "lu/mpi/message_tags.hpp"
#include "lu/mpi/message_units.hpp"
#include "lu/wall_clock.hpp"

namespace npblu {

ExchangeTimes halo_exchange(Field5& f, ColumnRange owned, int depth, const Communicator& comm,
                            WaitMode wait) {
  const double t0 = wall_seconds();
  const ColumnRange stored = f.columns();
  const int below = std::min(depth, owned.begin - stored.begin);  // halo columns below us
  const int above = std::min(depth, stored.end - owned.end);
  const ColumnDatatype column(f);  // counts are in whole columns

  MPI_Request req[4];
  int n = 0;
  if (comm.previous() != MPI_PROC_NULL) {
    check_mpi(MPI_Irecv(f.column(owned.begin - below), below, column.get(), comm.previous(), kTagHaloToNext,
                        comm.get(), &req[n++]),
              "halo receive");
    check_mpi(MPI_Isend(f.column(owned.begin), depth, column.get(), comm.previous(), kTagHaloToPrevious,
                        comm.get(), &req[n++]),
              "halo send");
  }
  if (comm.next() != MPI_PROC_NULL) {
    check_mpi(MPI_Irecv(f.column(owned.end), above, column.get(), comm.next(), kTagHaloToPrevious, comm.get(),
                        &req[n++]),
              "halo receive");
    check_mpi(MPI_Isend(f.column(owned.end - depth), depth, column.get(), comm.next(), kTagHaloToNext,
                        comm.get(), &req[n++]),
              "halo send");
  }
  const double t1 = wall_seconds();
  wait_for_all(n, req, wait);
  const double t2 = wall_seconds();
  return {t2 - t0, t2 - t1};
}

}  // namespace npblu
