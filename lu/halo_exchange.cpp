#include "lu/halo_exchange.hpp"

#include <algorithm>

#include "lu/wall_clock.hpp"

namespace npblu {

namespace {
constexpr int kHaloTag = 1 << 20;  // above every plane tag of the sweeps
}

ExchangeTimes halo_exchange(Field5& f, ColumnRange owned, int depth, const StripeComm& sc, WaitMode wait) {
  const double t0 = wall_seconds();
  const ColumnRange stored = f.columns();
  const int below = std::min(depth, owned.begin - stored.begin);  // halo columns below us
  const int above = std::min(depth, stored.end - owned.end);
  const auto count = [&](int cols) { return static_cast<int>(f.column_stride()) * cols; };

  MPI_Request req[4];
  int n = 0;
  if (sc.previous != MPI_PROC_NULL) {
    check_mpi(MPI_Irecv(f.column(owned.begin - below), count(below), MPI_DOUBLE, sc.previous, kHaloTag + 1,
                        sc.comm, &req[n++]),
              "halo receive");
    check_mpi(
        MPI_Isend(f.column(owned.begin), count(depth), MPI_DOUBLE, sc.previous, kHaloTag, sc.comm, &req[n++]),
        "halo send");
  }
  if (sc.next != MPI_PROC_NULL) {
    check_mpi(MPI_Irecv(f.column(owned.end), count(above), MPI_DOUBLE, sc.next, kHaloTag, sc.comm, &req[n++]),
              "halo receive");
    check_mpi(MPI_Isend(f.column(owned.end - depth), count(depth), MPI_DOUBLE, sc.next, kHaloTag + 1, sc.comm,
                        &req[n++]),
              "halo send");
  }
  const double t1 = wall_seconds();
  wait_for_all(n, req, wait);
  const double t2 = wall_seconds();
  return {t2 - t0, t2 - t1};
}

}  // namespace npblu
