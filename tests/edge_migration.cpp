// MPI integration test: the solver's fields grow and shrink at their edges.
//
//   mpiexec -n P edge_migration        (P = 2 or 3)
//
// Moves u-, rsd- and frct-like fields (halos 2, 1, 0) through a fixed series
// of partitions with migrate_fields: steps of one or two columns at either
// edge of every stripe, then each rank in turn losing all but one column
// and regaining them. After every step, on every rank: the owned columns
// hold their values (which depend on the point only, wherever it was stored),
// every column stored before and after has its bytes unchanged (and, when the
// field had room, its address), every other stored column is zero. Both the
// in-place path and the move to larger storage must have run. Exit 0 on
// pass, 1 on failure, 2 on a bad rank count, on every rank.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "balance/partition.hpp"
#include "lu/migration/column_migration.hpp"
#include "lu/mpi/mpi_program.hpp"

namespace {

using namespace npblu;

constexpr GridSize kGrid{7, 16, 5};  // 14 interior columns

double value(int m, int i, int k, int j) { return 1000.0 * j + 100.0 * k + 10.0 * i + m + 0.375; }

void fill_owned(Field5& f, ColumnRange owned) {
  for (int j = owned.begin; j < owned.end; ++j)
    for (int k = 0; k < kGrid.nz; ++k)
      for (int i = 0; i < kGrid.nx; ++i)
        for (int m = 0; m < 5; ++m) f(m, i, k, j) = value(m, i, k, j);
}

/// Halo columns get a marker of their own, to tell kept halos from new ones.
void fill_halos(Field5& f, ColumnRange owned) {
  const ColumnRange c = f.columns();
  for (int j = c.begin; j < c.end; ++j) {
    if (owned.contains(j)) continue;
    for (std::size_t p = 0; p < f.column_stride(); ++p) f.column(j)[p] = -1.0 - j;
  }
}

struct Snapshot {
  ColumnRange stored;
  bool had_room = false;
  std::map<int, const double*> address;
  std::map<int, std::vector<double>> bytes;
};

Snapshot snapshot(const Field5& f, ColumnRange next) {
  Snapshot s{f.columns(), f.has_room_for(next), {}, {}};
  for (int j = s.stored.begin; j < s.stored.end; ++j) {
    s.address[j] = f.column(j);
    s.bytes[j].assign(f.column(j), f.column(j) + f.column_stride());
  }
  return s;
}

/// Failures of one field after a step, as text.
std::string check(const Field5& f, const Snapshot& before, ColumnRange old_owned, ColumnRange owned) {
  std::string failures;
  const auto fail = [&](int j, const char* what) {
    failures += " column " + std::to_string(j) + ": " + what;
  };
  const std::size_t bytes = f.column_stride() * sizeof(double);
  const ColumnRange c = f.columns();
  for (int j = c.begin; j < c.end; ++j) {
    const bool kept = before.stored.contains(j) && !(owned.contains(j) && !old_owned.contains(j));
    if (owned.contains(j)) {
      for (int k = 0; k < kGrid.nz; ++k)
        for (int i = 0; i < kGrid.nx; ++i)
          for (int m = 0; m < 5; ++m)
            if (f(m, i, k, j) != value(m, i, k, j))
              return failures + " column " + std::to_string(j) + ": value";
    } else if (!kept) {
      for (std::size_t p = 0; p < f.column_stride(); ++p)
        if (f.column(j)[p] != 0.0) return failures + " column " + std::to_string(j) + ": new halo not zero";
    }
    if (kept && std::memcmp(f.column(j), before.bytes.at(j).data(), bytes) != 0)
      fail(j, "kept bytes changed");
    if (kept && before.had_room && f.column(j) != before.address.at(j)) fail(j, "kept column moved");
  }
  return failures;
}

std::vector<std::vector<int>> widths_for(int ranks) {
  if (ranks == 2) return {{7, 7}, {9, 5}, {8, 6}, {6, 8}, {7, 7}, {13, 1}, {7, 7}, {1, 13}, {8, 6}};
  return {{5, 5, 4}, {6, 4, 4},  {6, 5, 3}, {4, 6, 4},  {4, 5, 5}, {12, 1, 1},
          {5, 5, 4}, {1, 12, 1}, {5, 4, 5}, {1, 1, 12}, {4, 5, 5}};
}

int run(int rank, int ranks) {
  if (ranks != 2 && ranks != 3) {
    if (rank == 0) std::fprintf(stderr, "edge_migration: run on 2 or 3 ranks\n");
    return 2;
  }
  const Communicator comm = Communicator::borrow(MPI_COMM_WORLD);
  const ColumnRange interior = kGrid.interior_columns();
  const auto widths = widths_for(ranks);
  Partition current = Partition::from_widths(interior, widths[0], 1);
  const int halos[3] = {kStateHalo, kResidualHalo, 0};
  std::vector<Field5> fields;
  for (int h : halos) {
    fields.emplace_back(kGrid.nx, kGrid.nz, stored_columns(kGrid, current[rank], h));
    fill_owned(fields.back(), current[rank]);
    fill_halos(fields.back(), current[rank]);
  }
  int failed = 0, in_place = 0, moved = 0;
  for (std::size_t s = 1; s < widths.size(); ++s) {
    const Partition next = Partition::from_widths(interior, widths[s], 1);
    std::vector<Snapshot> before;
    std::vector<MigratedField> migrated;
    for (int f = 0; f < 3; ++f) {
      const ColumnRange next_stored = stored_columns(kGrid, next[rank], halos[f]);
      before.push_back(snapshot(fields[f], next_stored));
      migrated.push_back({&fields[f], halos[f]});
      (before.back().had_room ? in_place : moved) += before.back().stored != next_stored ? 1 : 0;
    }
    migrate_fields(migrated, current, next, kGrid, comm);
    for (int f = 0; f < 3; ++f) {
      const std::string failures = check(fields[f], before[f], current[rank], next[rank]);
      if (fields[f].columns() != stored_columns(kGrid, next[rank], halos[f])) failed = 1;
      if (!failures.empty()) {
        failed = 1;
        std::printf("FAIL: rank %d, step %zu (%s), halo %d:%s\n", rank, s, next.to_string().c_str(), halos[f],
                    failures.c_str());
      }
      fill_halos(fields[f], next[rank]);
    }
    current = next;
  }
  int totals[2] = {in_place, moved}, sums[2] = {0, 0};
  MPI_Allreduce(totals, sums, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("%d ranks, %zu steps: %d field moves in place, %d to larger storage\n", ranks,
                widths.size() - 1, sums[0], sums[1]);
    if (sums[0] == 0 || sums[1] == 0) failed = 1, std::printf("FAIL: both paths must run\n");
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0 && !failed) std::printf("PASS\n");
  return failed;
}

}  // namespace

int main(int argc, char** argv) {
  return npblu::run_mpi_program("edge_migration", argc, argv,
                                [](int, char**, int rank, int ranks) { return run(rank, ranks); });
}
