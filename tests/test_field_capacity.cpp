// Field5's spare capacity: a stripe grows and shrinks at either edge in
// place, and every column it keeps keeps its bytes (and, in place, its
// address); moving to larger storage or handing spare storage back keeps
// the stored columns' values.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <vector>

#include "lu/field.hpp"

using namespace npblu;

namespace {

constexpr int kNx = 6, kNz = 5;

/// A value that depends on the point only (never on where it is stored).
double value(int m, int i, int k, int j) { return 1000.0 * j + 100.0 * k + 10.0 * i + m + 0.125; }

void fill_column(Field5& f, int j) {
  for (int k = 0; k < kNz; ++k)
    for (int i = 0; i < kNx; ++i)
      for (int m = 0; m < Field5::kComponents; ++m) f(m, i, k, j) = value(m, i, k, j);
}

bool column_holds_values(const Field5& f, int j) {
  for (int k = 0; k < kNz; ++k)
    for (int i = 0; i < kNx; ++i)
      for (int m = 0; m < Field5::kComponents; ++m)
        if (f(m, i, k, j) != value(m, i, k, j)) return false;
  return true;
}

Field5 filled(ColumnRange c) {
  Field5 f(kNx, kNz, c);
  for (int j = c.begin; j < c.end; ++j) fill_column(f, j);
  return f;
}

/// Steps the stored range through `ranges` in place; after each, every
/// column stored before and after has its address and values unchanged.
void step_in_place(Field5& f, const std::vector<ColumnRange>& ranges) {
  for (const ColumnRange next : ranges) {
    ASSERT_TRUE(f.has_room_for(next));
    const ColumnRange before = f.columns();
    std::map<int, const double*> address;
    std::map<int, std::vector<double>> bytes;
    for (int j = before.begin; j < before.end; ++j) {
      address[j] = f.column(j);
      bytes[j].assign(f.column(j), f.column(j) + f.column_stride());
    }
    f.set_columns(next);
    EXPECT_EQ(f.columns(), next);
    for (int j = next.begin; j < next.end; ++j) {
      if (!before.contains(j)) {
        fill_column(f, j);  // what migration would receive
        continue;
      }
      EXPECT_EQ(f.column(j), address[j]) << "column " << j << " moved";
      EXPECT_EQ(std::memcmp(f.column(j), bytes[j].data(), f.column_stride() * sizeof(double)), 0) << j;
      EXPECT_TRUE(column_holds_values(f, j)) << j;
    }
  }
}

}  // namespace

TEST(Field5Capacity, StartsWithNoSpareColumn) {
  const Field5 f(kNx, kNz, {3, 9});
  EXPECT_EQ(f.capacity(), (ColumnRange{3, 9}));
  EXPECT_EQ(f.data(), f.column(3));
  for (std::size_t p = 0; p < f.size(); ++p) EXPECT_EQ(f.data()[p], 0.0);
}

TEST(Field5Capacity, GrowsAndShrinksAtEitherEdgeInPlace) {
  Field5 f = filled({10, 20});
  f.reserve({6, 24});
  EXPECT_EQ(f.capacity(), (ColumnRange{6, 24}));
  for (int j = 10; j < 20; ++j) EXPECT_TRUE(column_holds_values(f, j)) << j;
  step_in_place(f, {{8, 20}, {8, 24}, {6, 24}, {12, 24}, {12, 15}, {14, 15}, {6, 24}, {6, 7}, {6, 24}});
}

TEST(Field5Capacity, LosesAllButOneColumnAndRegainsThem) {
  Field5 f = filled({1, 31});
  f.reserve({0, 32});
  step_in_place(f, {{30, 31}, {1, 31}, {1, 2}, {0, 32}});
  for (int j = 0; j < 32; ++j) EXPECT_TRUE(column_holds_values(f, j)) << j;
}

TEST(Field5Capacity, OutgrowingMovesOnceWithHeadroom) {
  Field5 f = filled({10, 74});
  EXPECT_EQ(Field5::headroom(10), 2);  // at least 2, else 1/32 of the width
  EXPECT_EQ(Field5::headroom(64), 2);
  EXPECT_EQ(Field5::headroom(65), 3);
  // The ends that outgrow the storage get one headroom of the new width
  // (70 and 65 columns: 3); the others keep at most that much spare.
  EXPECT_EQ(f.capacity_for({10, 80}, {0, 100}), (ColumnRange{10, 83}));
  EXPECT_EQ(f.capacity_for({5, 70}, {0, 100}), (ColumnRange{2, 73}));
  // ...never past the grid.
  EXPECT_EQ(f.capacity_for({0, 80}, {0, 81}), (ColumnRange{0, 81}));
  Field5 grown = Field5::uninitialized(kNx, kNz, {10, 80}, f.capacity_for({10, 80}, {0, 100}));
  std::memcpy(grown.data(), f.data(), f.size() * sizeof(double));
  for (int j = 74; j < 80; ++j) fill_column(grown, j);
  step_in_place(grown, {{10, 83}, {10, 75}});
  for (int j = 10; j < 75; ++j) EXPECT_TRUE(column_holds_values(grown, j)) << j;
}

TEST(Field5Capacity, HandsBackSpareStorageKeepingTheStoredColumns) {
  Field5 f = filled({10, 74});
  f.reserve({0, 100});
  f.set_columns({40, 50});
  f.release_spare({0, 100});
  ASSERT_TRUE(f.has_room_for({38, 52}));  // one headroom kept at each end
  for (int j = 40; j < 50; ++j) EXPECT_TRUE(column_holds_values(f, j)) << j;
  // Growing back into handed-back columns, then storing them again.
  step_in_place(f, {{38, 52}, {38, 41}});
  for (int j = 38; j < 41; ++j) EXPECT_TRUE(column_holds_values(f, j)) << j;
}

TEST(Field5Capacity, AddressSpaceForTheWholeGridLetsAStripeGrowAnywhereInPlace) {
  Field5 f = filled({20, 30});
  const bool reserved = f.reserve_address_space({0, 64});
#if defined(__linux__)
  ASSERT_TRUE(reserved);
#endif
  if (!reserved) GTEST_SKIP() << "no address-space reservation on this system";
  EXPECT_EQ(f.capacity(), (ColumnRange{0, 64}));
  for (int j = 20; j < 30; ++j) EXPECT_TRUE(column_holds_values(f, j)) << j;
  step_in_place(f, {{0, 30}, {0, 64}, {62, 64}, {0, 64}, {31, 33}});
  f.release_spare({0, 64});
  step_in_place(f, {{29, 35}, {0, 2}, {0, 64}});
  for (int j = 0; j < 64; ++j) EXPECT_TRUE(column_holds_values(f, j)) << j;
}
