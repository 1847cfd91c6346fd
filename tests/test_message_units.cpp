// MPI counts at every NPB class: messages count whole columns (a datatype of
// one column) or doubles of one row, so no count overflows an int, up to
// class F. Counting doubles of several columns, as before, would.
#include <gtest/gtest.h>
#include <mpi.h>

#include <climits>
#include <stdexcept>
#include <vector>

#include "balance/partition.hpp"
#include "lu/field.hpp"
#include "lu/grid.hpp"
#include "lu/mpi/message_tags.hpp"
#include "lu/mpi/message_units.hpp"
#include "verify/class_table.hpp"

namespace {

int class_size(char name) { return npblu::find_problem_class(name)->n; }

MPI_Count type_size(const npblu::ColumnDatatype& t) {
  MPI_Count size = 0;
  MPI_Type_size_x(t.get(), &size);
  return size;
}

}  // namespace

TEST(MessageUnits, ClassesEAndFFitInIntCounts) {
  for (char name : {'E', 'F'}) {
    SCOPED_TRACE(std::string(1, name));
    const int n = class_size(name);
    const npblu::GridSize g{n, n, n};
    const long long column_doubles = 5LL * n * n;
    // The unit of halo and migration messages: one column, as a datatype.
    ASSERT_EQ(npblu::column_elements(g.nx, g.nz), column_doubles);
    const npblu::ColumnDatatype column(g.nx, g.nz);
    EXPECT_EQ(type_size(column), column_doubles * long(sizeof(double)));
    // The largest counts: a halo exchange sends kStateHalo columns; a
    // migration at most every interior column but a minimum-width stripe;
    // a pipeline message one row of doubles.
    const int halo_count = npblu::kStateHalo;
    const int migration_count = g.interior_columns().width() - npblu::kMinimumColumnWidth;
    EXPECT_LE(halo_count, INT_MAX);
    EXPECT_GT(migration_count, 0);
    EXPECT_EQ(npblu::row_elements(g.nx), 5 * n);
    // The same migration counted in doubles would not fit an int: the old
    // static_cast<int>(column_stride * width) overflowed from 413 (E) / 66 (F) columns.
    EXPECT_GT(column_doubles * migration_count, static_cast<long long>(INT_MAX));
    EXPECT_GT(column_doubles * (name == 'E' ? 413 : 66), static_cast<long long>(INT_MAX));
    EXPECT_LE(column_doubles * (name == 'E' ? 412 : 65), static_cast<long long>(INT_MAX));
  }
  EXPECT_EQ(class_size('E'), 1020);
  EXPECT_EQ(class_size('F'), 2560);
}

TEST(MessageUnits, AColumnTooLargeForOneCountIsAnError) {
  // 5 * 30000 * 30000 doubles in one column: beyond what any int counts.
  EXPECT_THROW(npblu::column_elements(30000, 30000), std::runtime_error);
  EXPECT_THROW(npblu::ColumnDatatype(30000, 30000), std::runtime_error);
}

TEST(MessageUnits, ColumnsTravelWholeAsTheDatatype) {
  // Three columns of a small field sent to ourselves as three column units.
  npblu::Field5 from(3, 4, {0, 6}), to(3, 4, {0, 6});
  for (std::size_t p = 0; p < from.size(); ++p) from.data()[p] = 0.5 + double(p);
  const npblu::ColumnDatatype column(from);
  MPI_Request req[2];
  MPI_Irecv(to.column(2), 3, column.get(), 0, npblu::kTagColumnMigration, MPI_COMM_SELF, &req[0]);
  MPI_Isend(from.column(1), 3, column.get(), 0, npblu::kTagColumnMigration, MPI_COMM_SELF, &req[1]);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  for (int j = 0; j < 6; ++j) {
    for (std::size_t q = 0; q < from.column_stride(); ++q) {
      const double expected = (j >= 2 && j < 5) ? from.column(j - 1)[q] : 0.0;
      ASSERT_EQ(to.column(j)[q], expected) << "column " << j << " element " << q;
    }
  }
}

TEST(MessageTags, SmallAndWithinTheTagBound) {
  // The standard guarantees MPI_TAG_UB >= 32767; we need only a handful.
  EXPECT_LE(static_cast<int>(npblu::kLargestTag), 32767);
  EXPECT_GE(npblu::tag_upper_bound(MPI_COMM_WORLD), 32767);
  EXPECT_NO_THROW(npblu::require_message_tags(MPI_COMM_WORLD));
  const std::vector<int> tags{npblu::kTagSweepLower, npblu::kTagSweepUpper, npblu::kTagHaloToPrevious,
                              npblu::kTagHaloToNext, npblu::kTagColumnMigration};
  for (std::size_t a = 0; a < tags.size(); ++a) {
    EXPECT_GE(tags[a], 0);
    for (std::size_t b = a + 1; b < tags.size(); ++b) EXPECT_NE(tags[a], tags[b]);
  }
}
