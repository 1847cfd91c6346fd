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
// columns().end) and nothing else.
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

#include "balance/column_range.hpp"

namespace npblu {

namespace detail {
struct FreeDeleter {
  void operator()(double* p) const noexcept { std::free(p); }
};
}  // namespace detail

class Field5 {
 public:
  static constexpr int kComponents = 5;

  Field5() = default;
  Field5(int nx, int nz, ColumnRange columns) : nx_(nx), nz_(nz), columns_(columns) {
    const std::size_t n = size();
    if (n > 0) {
      // 64-byte alignment: rows start on cache lines when 5*nx*8 is a multiple of 64.
      const std::size_t bytes = ((n * sizeof(double) + 63) / 64) * 64;
      data_.reset(static_cast<double*>(std::aligned_alloc(64, bytes)));
      if (!data_) throw std::bad_alloc();
      for (std::size_t p = 0; p < n; ++p) data_[p] = 0.0;
    }
  }

  [[nodiscard]] int nx() const { return nx_; }
  [[nodiscard]] int nz() const { return nz_; }
  [[nodiscard]] ColumnRange columns() const { return columns_; }
  [[nodiscard]] std::size_t row_stride() const { return std::size_t(kComponents) * nx_; }
  [[nodiscard]] std::size_t column_stride() const { return row_stride() * nz_; }
  [[nodiscard]] std::size_t size() const { return column_stride() * columns_.width(); }

  [[nodiscard]] double* data() { return data_.get(); }
  [[nodiscard]] const double* data() const { return data_.get(); }

  /// All (m, i) of plane k in global column j.
  [[nodiscard]] double* row(int k, int j) { return data_.get() + offset(k, j); }
  [[nodiscard]] const double* row(int k, int j) const { return data_.get() + offset(k, j); }
  /// The five components at point (i, k, j).
  [[nodiscard]] double* point(int i, int k, int j) { return row(k, j) + kComponents * i; }
  [[nodiscard]] const double* point(int i, int k, int j) const { return row(k, j) + kComponents * i; }
  /// All (m, i, k) of global column j.
  [[nodiscard]] double* column(int j) { return row(0, j); }
  [[nodiscard]] const double* column(int j) const { return row(0, j); }

  double& operator()(int m, int i, int k, int j) { return point(i, k, j)[m]; }
  double operator()(int m, int i, int k, int j) const { return point(i, k, j)[m]; }

 private:
  [[nodiscard]] std::size_t offset(int k, int j) const {
    return column_stride() * std::size_t(j - columns_.begin) + row_stride() * std::size_t(k);
  }

  int nx_ = 0;
  int nz_ = 0;
  ColumnRange columns_{};
  std::unique_ptr<double[], detail::FreeDeleter> data_;
};

}  // namespace npblu
