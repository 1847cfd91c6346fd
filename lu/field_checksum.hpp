#pragma once
// A digest of a distributed field that depends only on its values, not on
// how the columns are split over ranks: equal digests <=> (with
// overwhelming probability) bitwise equal fields.
#include <cstdint>
#include <span>
#include <string>

#include "lu/field.hpp"
#include "lu/mpi/communicator.hpp"

namespace npblu {

/// 64-bit digest of one column's bytes (all m, i, k).
std::uint64_t column_digest(const Field5& f, int j);

/// The field's digest from its columns' digests, in column order (what
/// field_checksum returns; a checkpoint reader checks a field with it).
std::string combine_column_digests(std::span<const std::uint64_t> column_digests);

/// Collective. Digest of the whole field over global columns [0, ny): each
/// rank digests its owned columns (the first and last rank also the boundary
/// columns 0 and ny-1), rank 0 combines them in column order. Returns a
/// 16-digit hex string on rank 0 and an empty string elsewhere.
std::string field_checksum(const Field5& f, ColumnRange owned, int ny, const Communicator& comm);

}  // namespace npblu
