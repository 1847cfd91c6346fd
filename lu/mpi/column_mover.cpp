#include "lu/mpi/column_mover.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "lu/mpi/check_mpi.hpp"

namespace npblu {

namespace {

ColumnRange intersect(ColumnRange a, ColumnRange b) {
  const int begin = std::max(a.begin, b.begin);
  return {begin, std::max(begin, std::min(a.end, b.end))};
}

/// An MPI datatype of one column of `bytes` bytes. MPI counts are ints, so
/// a column of more than INT_MAX bytes is built as whole mebibytes plus a
/// remainder: message counts are then whole columns and never overflow.
class ByteColumnType {
 public:
  explicit ByteColumnType(std::size_t bytes) {
    constexpr std::size_t kChunk = std::size_t(1) << 20;
    if (bytes <= std::size_t(INT_MAX)) {
      check_mpi(MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &type_), "column datatype");
    } else {
      MPI_Datatype chunk = MPI_DATATYPE_NULL;
      check_mpi(MPI_Type_contiguous(static_cast<int>(kChunk), MPI_BYTE, &chunk), "column datatype");
      int lengths[2] = {static_cast<int>(bytes / kChunk), static_cast<int>(bytes % kChunk)};
      MPI_Aint displacements[2] = {0, static_cast<MPI_Aint>(bytes / kChunk * kChunk)};
      MPI_Datatype types[2] = {chunk, MPI_BYTE};
      check_mpi(MPI_Type_create_struct(2, lengths, displacements, types, &type_), "column datatype");
      MPI_Type_free(&chunk);
    }
    check_mpi(MPI_Type_commit(&type_), "column datatype");
  }
  ByteColumnType(const ByteColumnType&) = delete;
  ByteColumnType& operator=(const ByteColumnType&) = delete;
  ~ByteColumnType() { MPI_Type_free(&type_); }  // MPI allows freeing a type pending messages use
  [[nodiscard]] MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

std::size_t offset(const ColumnRange& stored, int j, std::size_t column_bytes) {
  return std::size_t(j - stored.begin) * column_bytes;
}

/// Copies what this rank keeps: every column stored before and after,
/// except the ones that become ours (those arrive from their old owner).
/// In an in-place move a kept column is already where it belongs.
void copy_kept(const MovedArray& a, ColumnRange old_owned, ColumnRange new_owned) {
  const ColumnRange kept = intersect(a.old_stored, a.new_stored);
  for (int j = kept.begin; j < kept.end; ++j) {
    if (new_owned.contains(j) && !old_owned.contains(j)) continue;
    std::byte* to = a.new_data + offset(a.new_stored, j, a.column_bytes);
    const std::byte* from = a.old_data + offset(a.old_stored, j, a.column_bytes);
    if (to != from) std::memcpy(to, from, a.column_bytes);
  }
}

}  // namespace

void move_columns(std::span<const MovedArray> arrays, const Partition& from, const Partition& to,
                  const Communicator& comm, int tag, WaitMode wait) {
  const int rank = comm.rank(), size = comm.size();
  const ColumnRange old_owned = from[rank];
  const ColumnRange new_owned = to[rank];
  std::vector<MPI_Request> requests;
  for (const MovedArray& a : arrays) {
    const ByteColumnType column(a.column_bytes);
    // Per peer: sends and receives in array order, so messages on one tag
    // match in order.
    for (int q = 0; q < size; ++q) {
      if (q == rank) continue;
      const ColumnRange incoming = intersect(from[q], new_owned);
      if (!incoming.empty()) {
        requests.emplace_back();
        check_mpi(MPI_Irecv(a.new_data + offset(a.new_stored, incoming.begin, a.column_bytes),
                            incoming.width(), column.get(), q, tag, comm.get(), &requests.back()),
                  "migration receive");
      }
      const ColumnRange outgoing = intersect(old_owned, to[q]);
      if (!outgoing.empty()) {
        requests.emplace_back();
        check_mpi(MPI_Isend(a.old_data + offset(a.old_stored, outgoing.begin, a.column_bytes),
                            outgoing.width(), column.get(), q, tag, comm.get(), &requests.back()),
                  "migration send");
      }
    }
    copy_kept(a, old_owned, new_owned);
  }
  wait_for_all(static_cast<int>(requests.size()), requests.data(), wait);
}

}  // namespace npblu
