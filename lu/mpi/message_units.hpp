#pragma once
// MPI counts are ints. Messages therefore count whole columns (an MPI
// datatype of column_stride doubles) or rows of doubles, never doubles of
// several columns: at class F (2560^3) a column is 5*2560*2560 = 32.8 M
// doubles, and 66 of them as doubles would overflow an int.
#include <mpi.h>

#include <climits>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "lu/field.hpp"

namespace npblu {

/// `n` as an MPI count; throws if it does not fit.
inline int mpi_count(std::size_t n, const char* what) {
  if (n > std::size_t(INT_MAX)) {
    throw std::runtime_error(std::string(what) + ": " + std::to_string(n) +
                             " elements exceed MPI's int count");
  }
  return static_cast<int>(n);
}

/// Doubles in one column (all m, i, k) of an nx x nz grid: the element count
/// of the column datatype.
inline int column_elements(int nx, int nz) {
  return mpi_count(std::size_t(Field5::kComponents) * std::size_t(nx) * std::size_t(nz), "one grid column");
}

/// Doubles in one (k, j) row: the pipeline's message.
inline int row_elements(int nx) {
  return mpi_count(std::size_t(Field5::kComponents) * std::size_t(nx), "one row");
}

/// An MPI datatype of one whole column of a field (owned; freed at scope
/// end; MPI lets a type be freed while messages using it are pending).
class ColumnDatatype {
 public:
  ColumnDatatype(int nx, int nz) {
    MPI_Type_contiguous(column_elements(nx, nz), MPI_DOUBLE, &type_);
    MPI_Type_commit(&type_);
  }
  explicit ColumnDatatype(const Field5& f) : ColumnDatatype(f.nx(), f.nz()) {}
  ColumnDatatype(const ColumnDatatype&) = delete;
  ColumnDatatype& operator=(const ColumnDatatype&) = delete;
  ~ColumnDatatype() { MPI_Type_free(&type_); }

  [[nodiscard]] MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

}  // namespace npblu
