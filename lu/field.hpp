#pragma once
// Field5: five conserved quantities on one rank's stripe of the grid.
//
// Layout (fastest first): m (5 components), i, k, j. The column index j is
// outermost so that
//  - one (k, j) row of all i is contiguous (5*nx doubles): the message a rank
//    passes to its neighbour for each plane of the pipelined sweeps;
//  - one whole column j (all i, k) is contiguous: halo exchange and column
//    migration move plain memory blocks, no packing.
// j is a global column index; the field stores columns [columns().begin,
// columns().end).
//
// Stripes grow and shrink at their edges when the partition changes, so the
// storage may have room for more: capacity() is a range of global columns
// containing columns(), and column j always lives at the same address in it.
// A field starts with no spare column (a run that never migrates uses exactly
// what it stores). Column migration (lu/column_migration) changes columns() in
// place while the new columns fit, and otherwise moves the field to storage
// with headroom (capacity_for), or reserves address space for the whole grid
// up front (reserve_address_space), where nothing ever moves. Spare columns
// beyond a bound are handed back to the system (release_spare), so the memory
// of a field never exceeds its stored columns by more than kKeptHeadrooms
// headrooms.
#include <algorithm>
#include <cstddef>
#include <memory>

#include "balance/column_range.hpp"

namespace npblu {

namespace detail {
/// Frees a field's storage: mapped (storage of 1 MB or more on Linux, or
/// address space reserved, see Field5::reserve_address_space) when
/// mapped_bytes > 0, else allocated.
struct StorageRelease {
  std::size_t mapped_bytes = 0;
  void operator()(double* p) const noexcept;
};
}  // namespace detail

class Field5 {
 public:
  static constexpr int kComponents = 5;
  /// Spare columns given to an edge that outgrows the capacity: 1/32 of the
  /// width, at least 2 (so a 2-column step back and forth never reallocates).
  static constexpr int kHeadroomDivisor = 32;
  static constexpr int kMinimumHeadroom = 2;
  /// Spare columns kept in memory: up to this many headrooms in all; beyond
  /// that, all but one headroom at each end is returned to the system.
  static constexpr int kKeptHeadrooms = 2;

  Field5() = default;
  /// Zeroed storage of exactly `columns`.
  Field5(int nx, int nz, ColumnRange columns);
  /// Storage for `capacity` (which contains `columns`), not initialised.
  static Field5 uninitialized(int nx, int nz, ColumnRange columns, ColumnRange capacity);

  [[nodiscard]] int nx() const { return nx_; }
  [[nodiscard]] int nz() const { return nz_; }
  [[nodiscard]] ColumnRange columns() const { return columns_; }
  /// The columns the storage has room for (contains columns()).
  [[nodiscard]] ColumnRange capacity() const { return capacity_; }
  [[nodiscard]] bool has_room_for(ColumnRange c) const {
    return c.empty() || (capacity_.begin <= c.begin && c.end <= capacity_.end);
  }
  [[nodiscard]] std::size_t row_stride() const { return std::size_t(kComponents) * nx_; }
  [[nodiscard]] std::size_t column_stride() const { return row_stride() * nz_; }
  /// Doubles of the stored columns (from data()).
  [[nodiscard]] std::size_t size() const { return column_stride() * columns_.width(); }

  /// The first stored column; the stored columns follow it contiguously.
  [[nodiscard]] double* data() { return column(columns_.begin); }
  [[nodiscard]] const double* data() const { return column(columns_.begin); }

  /// All (m, i) of plane k in global column j.
  [[nodiscard]] double* row(int k, int j) { return data_.get() + offset(k, j); }
  [[nodiscard]] const double* row(int k, int j) const { return data_.get() + offset(k, j); }
  /// The five components at point (i, k, j).
  [[nodiscard]] double* point(int i, int k, int j) { return row(k, j) + kComponents * i; }
  [[nodiscard]] const double* point(int i, int k, int j) const { return row(k, j) + kComponents * i; }
  /// All (m, i, k) of global column j (any j in capacity()).
  [[nodiscard]] double* column(int j) { return row(0, j); }
  [[nodiscard]] const double* column(int j) const { return row(0, j); }

  double& operator()(int m, int i, int k, int j) { return point(i, k, j)[m]; }
  double operator()(int m, int i, int k, int j) const { return point(i, k, j)[m]; }

  /// Stores `columns` from now on, in place; they must lie within capacity().
  /// Columns stored before keep their values and addresses; the new ones hold
  /// whatever the storage held (the caller writes them).
  void set_columns(ColumnRange columns);

  /// Makes room for `capacity` too: when it is not within capacity(), moves
  /// the stored columns, once, to storage for both.
  void reserve(ColumnRange capacity);

  /// Reserves address space for every column of `limit` (which contains
  /// columns()), moving the stored columns there once: the field can then
  /// grow anywhere in `limit` in place. Memory is used only by the columns
  /// stored and the spare ones release_spare keeps. Returns false, changing
  /// nothing, where the system does not allow it (not Linux, a limit on
  /// address space, strict overcommit): callers then reserve() headroom.
  bool reserve_address_space(ColumnRange limit);

  /// Where this field would move to store `next` (not within capacity()):
  /// `next` plus one headroom at each end that outgrew the capacity, and at
  /// most one headroom of the current spare at the others; clipped to
  /// `limit`, the columns that exist.
  [[nodiscard]] ColumnRange capacity_for(ColumnRange next, ColumnRange limit) const;

  /// Hands spare storage back to the system once it exceeds kKeptHeadrooms
  /// headrooms, keeping one headroom at each end. The capacity (address
  /// range) stays; released columns cost memory again only once stored.
  /// Where pages cannot be released (not Linux), the field is reallocated.
  void release_spare(ColumnRange limit);

  /// Spare columns given to an edge that outgrows the capacity of a stripe
  /// `width` columns wide.
  [[nodiscard]] static int headroom(int width) {
    return std::max(kMinimumHeadroom, (width + kHeadroomDivisor - 1) / kHeadroomDivisor);
  }

 private:
  [[nodiscard]] std::size_t offset(int k, int j) const {
    return column_stride() * std::size_t(j - capacity_.begin) + row_stride() * std::size_t(k);
  }
  /// Tells the system it may drop the memory of capacity columns [begin, end).
  void release_columns(int begin, int end);

  int nx_ = 0;
  int nz_ = 0;
  ColumnRange columns_{};
  ColumnRange capacity_{};
  std::unique_ptr<double[], detail::StorageRelease> data_;
};

}  // namespace npblu
