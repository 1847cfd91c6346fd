// The balance API's migration (npblu_balance.h: npblu_balancer_migrate and
// the Fortran module's npblu_balancer_migrate_fn): the caller's arrays moved
// from the previous stripes to the current ones by move_columns (the
// solver's), timed as the price of the next step. Arguments are checked and
// agreed first, so a bad one on any rank leaves every array as it was.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "interop/c/npblu_agreement.hpp"
#include "interop/c/npblu_balance.h"
#include "interop/c/npblu_balancer_handle.hpp"
#include "interop/c/npblu_status.hpp"
#include "lu/mpi/column_mover.hpp"
#include "lu/mpi/message_tags.hpp"

namespace {

using npblu::ColumnRange;
using npblu::c_api::fail;
using npblu::c_api::guarded;

/// The columns the Fortran module's one array stores (its last dimension),
/// before and after (-1: not known, C and arrays of rank 1).
struct StoredColumns {
  long long old_columns = -1, new_columns = -1;
  bool fortran = false;  // npblu_balancer_migrate_fn: Fortran's one array (fortran_column_bytes_problem)
};

/// The Fortran module's column_bytes of 0 or below: a Fortran integer is
/// signed, and a negative one arrives as its two's complement (above
/// PTRDIFF_MAX, which no Fortran integer reaches). "The array": "array 0"
/// would be a C index Fortran never wrote.
std::string fortran_column_bytes_problem(size_t column_bytes) {
  return "the array's column_bytes is " + std::to_string(static_cast<long long>(column_bytes)) +
         " (NPBLU_BAL_MIGRATE: NELEM x IELSZ): give the bytes of one column, at least 1";
}

/// Whether the caller's array holds the stripe with its halos ("" if so, or not known).
std::string extent_problem(const char* which, long long stored, ColumnRange stripe, int halo) {
  const long long needed = stripe.width() + 2LL * halo;
  if (stored < 0 || stored == needed) return "";
  return std::string("the ") + which + " array stores " + std::to_string(stored) +
         " columns (its last dimension), not the " + std::to_string(needed) + " of columns " +
         std::to_string(stripe.begin + 1) + ".." + std::to_string(stripe.end) + " and " +
         std::to_string(halo) + " halo columns each side";
}

npblu::MovedArray moved_array(const npblu_balancer* h, const void* old_data, void* new_data,
                              std::size_t bytes, int halo) {
  const ColumnRange from = h->balancer.session().previous()[h->comm.rank()];
  const ColumnRange to = h->balancer.session().current()[h->comm.rank()];
  return {static_cast<const std::byte*>(old_data),
          {from.begin - halo, from.end + halo},
          static_cast<std::byte*>(new_data),
          {to.begin - halo, to.end + halo},
          bytes};
}

/// The bytes [begin, end) an array's stored columns span.
struct Span {
  std::uintptr_t begin = 0, end = 0;
  [[nodiscard]] bool meets(Span o) const { return begin < o.end && o.begin < end; }
};
Span old_span(const npblu::MovedArray& m) {
  const auto begin = reinterpret_cast<std::uintptr_t>(m.old_data);
  return {begin, begin + std::uintptr_t(m.old_stored.width()) * m.column_bytes};
}
Span new_span(const npblu::MovedArray& m) {
  const auto begin = reinterpret_cast<std::uintptr_t>(m.new_data);
  return {begin, begin + std::uintptr_t(m.new_stored.width()) * m.column_bytes};
}

/// Whether array a's new storage shares bytes with any old array (the mover
/// reads every old array while it writes the new ones) or with an earlier
/// array's new storage (one would overwrite the other): "" if not.
std::string overlap_problem(const std::vector<npblu::MovedArray>& arrays, std::size_t a) {
  const Span written = new_span(arrays[a]);
  const std::string name = "array " + std::to_string(a) + ": the new array overlaps ";
  for (std::size_t b = 0; b < arrays.size(); ++b) {
    if (written.meets(old_span(arrays[b])))
      return name + (a == b ? "the old one" : "old array " + std::to_string(b)) + " (give separate storage)";
    if (b < a && written.meets(new_span(arrays[b])))
      return name + "new array " + std::to_string(b) + " (give separate storage)";
  }
  return "";
}

/// What is wrong with this rank's migrate arguments ("" if nothing).
std::string migrate_problem(const npblu_balancer* h, int count, const void* const* old_arrays,
                            void* const* new_arrays, const size_t* column_bytes, int halo,
                            StoredColumns stored) {
  if (count < 0) return "negative array count " + std::to_string(count);
  const int columns = h->balancer.session().current().interior().width();
  if (halo < 0 || halo > columns)
    return "halo depth " + std::to_string(halo) + " is not in [0, " + std::to_string(columns) + "]";
  if (count == 0) return "";
  if (!old_arrays) return "old_arrays is a null pointer";
  if (!new_arrays) return "new_arrays is a null pointer";
  if (!column_bytes) return "column_bytes is a null pointer";
  const int rank = h->comm.rank();
  std::string extents =
      extent_problem("old", stored.old_columns, h->balancer.session().previous()[rank], halo);
  if (extents.empty())
    extents = extent_problem("new", stored.new_columns, h->balancer.session().current()[rank], halo);
  if (!extents.empty()) return extents + " on rank " + std::to_string(rank);
  for (int a = 0; a < count; ++a) {
    if (!old_arrays[a] || !new_arrays[a]) return "array " + std::to_string(a) + " is a null pointer";
    if (stored.fortran && (column_bytes[a] == 0 || column_bytes[a] > std::uint64_t(PTRDIFF_MAX)))
      return fortran_column_bytes_problem(column_bytes[a]);
    if (column_bytes[a] == 0) return "array " + std::to_string(a) + " has 0 bytes per column";
    // The whole stored range (at most every column and both halos) must fit an address space.
    const auto most_columns = std::uint64_t(columns) + 2 * std::uint64_t(halo);
    if (column_bytes[a] > std::uint64_t(PTRDIFF_MAX) / most_columns)
      return "array " + std::to_string(a) + ": column_bytes " + std::to_string(column_bytes[a]) + " times " +
             std::to_string(most_columns) + " columns exceeds the address space";
  }
  std::vector<npblu::MovedArray> arrays;
  for (int a = 0; a < count; ++a)
    arrays.push_back(moved_array(h, old_arrays[a], new_arrays[a], column_bytes[a], halo));
  for (std::size_t a = 0; a < arrays.size(); ++a)
    if (std::string overlap = overlap_problem(arrays, a); !overlap.empty()) return overlap;
  return "";
}

int migrate(npblu_balancer* h, int count, const void* const* old_arrays, void* const* new_arrays,
            const size_t* column_bytes, int halo, StoredColumns stored = {}) {
  const std::string problem = migrate_problem(h, count, old_arrays, new_arrays, column_bytes, halo, stored);
  const std::string agreed = npblu::c_api::agree_call(
      h->comm.get(), "npblu_balancer_migrate",
      npblu::c_api::ArgumentText().add("count", count).add("halo", halo).str(), problem);
  if (!agreed.empty()) return fail(h, NPBLU_ERROR_ARGUMENT, agreed + "; nothing moved");
  npblu::c_api::ArgumentText sizes;
  for (int a = 0; a < count; ++a) sizes.add("column_bytes", column_bytes[a]);
  npblu::c_api::agree_call(h->comm.get(), "npblu_balancer_migrate (column_bytes)", sizes.str());
  std::vector<npblu::MovedArray> arrays;
  for (int a = 0; a < count; ++a) {
    arrays.push_back(moved_array(h, old_arrays[a], new_arrays[a], column_bytes[a], halo));
  }
  const npblu::BalancerSession& session = h->balancer.session();
  // Timed: the price of the next step is what moving the caller's arrays cost.
  h->balancer.timed_apply([&] {
    npblu::move_columns(arrays, session.previous(), session.current(), h->comm, npblu::kTagBalancedArrays,
                        h->wait);
  });
  return NPBLU_OK;
}

}  // namespace

extern "C" {

int npblu_balancer_migrate(npblu_balancer* h, int count, const void* const* old_arrays,
                           void* const* new_arrays, const size_t* column_bytes, int halo) {
  return guarded(h, "npblu_balancer_migrate",
                 [&] { return migrate(h, count, old_arrays, new_arrays, column_bytes, halo); });
}

int npblu_balancer_migrate_fn(npblu_balancer* h, const void* old_array, void* new_array, size_t column_bytes,
                              int halo, long long old_columns, long long new_columns) {
  return guarded(h, "npblu_balancer_migrate_fn", [&] {
    return migrate(h, 1, &old_array, &new_array, &column_bytes, halo, {old_columns, new_columns, true});
  });
}

}  // extern "C"
