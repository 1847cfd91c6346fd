#include "lu/field.hpp"

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace npblu {

void detail::StorageRelease::operator()(double* p) const noexcept {
#if defined(__linux__)
  if (mapped_bytes > 0) {
    munmap(p, mapped_bytes);
    return;
  }
#endif
  std::free(p);
}

namespace {

using Storage = std::unique_ptr<double[], detail::StorageRelease>;

// Storage at least this large is mapped from the system directly (Linux):
// it goes back to the system the moment it is freed. Through malloc it may
// stay in the heap instead (glibc serves blocks below its adaptive threshold,
// up to 32 MB, from the heap and keeps what it cannot trim), so a run's
// transient buffers, such as a checkpoint's pieces, would accumulate.
constexpr std::size_t kMappedStorageBytes = std::size_t(1) << 20;

/// Storage for `doubles`; `zeroed` reports whether it is known to be zero.
Storage allocate(std::size_t doubles, bool& zeroed) {
  zeroed = false;
  if (doubles == 0) return nullptr;
  // 64-byte alignment: rows start on cache lines when 5*nx*8 is a multiple of 64.
  const std::size_t bytes = ((doubles * sizeof(double) + 63) / 64) * 64;
#if defined(__linux__)
  if (bytes >= kMappedStorageBytes) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    zeroed = true;  // fresh anonymous pages read as zero
    return Storage(static_cast<double*>(p), detail::StorageRelease{bytes});
  }
#endif
  Storage p(static_cast<double*>(std::aligned_alloc(64, bytes)));
  if (!p) throw std::bad_alloc();
  return p;
}

Storage allocate(std::size_t doubles) {
  bool zeroed = false;
  return allocate(doubles, zeroed);
}

std::uintptr_t page_size() {
#if defined(__linux__)
  static const std::uintptr_t page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  return page;
#else
  return 4096;
#endif
}

/// Tells the system it may drop the memory of the whole pages within
/// [begin, end) (their contents are lost; a page touched again is zero).
/// Whole pages strictly inside: whatever shares a page with the range (the
/// allocator's bookkeeping, stored columns) is never touched.
void discard_pages(const double* begin, const double* end) {
#if defined(__linux__)
  const std::uintptr_t page = page_size();
  const auto first = reinterpret_cast<std::uintptr_t>(begin);
  const auto last = reinterpret_cast<std::uintptr_t>(end);
  const std::uintptr_t from = (first + page - 1) / page * page, to = last / page * page;
  // Advice only: if the system declines, the memory simply stays ours.
  if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
#else
  (void)begin;
  (void)end;
#endif
}

bool all_zero(const double* p, std::size_t n) {
  for (std::size_t e = 0; e < n; ++e) {
    if (std::bit_cast<std::uint64_t>(p[e]) != 0) return false;
  }
  return true;
}

/// Copies `doubles` to `to`, which reads as zero already (a fresh mapping),
/// one page of `to` at a time, skipping the pages whose source is all +0.0:
/// those stay untouched and cost no memory (a field's pages never written).
void copy_into_zeroed(const double* from, double* to, std::size_t doubles) {
  const std::uintptr_t page = page_size();
  for (std::size_t at = 0; at < doubles;) {
    const auto address = reinterpret_cast<std::uintptr_t>(to + at);
    const std::size_t n = std::min(doubles - at, (page - address % page) / sizeof(double));
    if (!all_zero(from + at, n)) std::memcpy(to + at, from + at, n * sizeof(double));
    at += n;
  }
}

/// Copies `doubles` from storage about to be freed, a slice at a time, and
/// hands each copied slice of the source back to the system: a field moving
/// to new storage then never holds two copies of itself (class C on 2
/// ranks: 87 MB for u). `to_zeroed`: `to` reads as zero already.
void move_out_of(const double* from, double* to, std::size_t doubles, bool to_zeroed = false) {
  constexpr std::size_t kSlice = std::size_t(1) << 17;  // doubles: 1 MB
  for (std::size_t at = 0; at < doubles; at += kSlice) {
    const std::size_t n = std::min(kSlice, doubles - at);
    if (to_zeroed)
      copy_into_zeroed(from + at, to + at, n);
    else
      std::memcpy(to + at, from + at, n * sizeof(double));
    discard_pages(from + at, from + at + n);
  }
}

ColumnRange hull(ColumnRange a, ColumnRange b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return {std::min(a.begin, b.begin), std::max(a.end, b.end)};
}

}  // namespace

Field5::Field5(int nx, int nz, ColumnRange columns)
    : nx_(nx), nz_(nz), columns_(columns), capacity_(columns) {
  bool zeroed = false;
  data_ = allocate(size(), zeroed);
  // Mapped storage is zero already: pages never written (a boundary column
  // of the residual) then cost no memory at all.
  if (data_ && !zeroed) std::memset(data_.get(), 0, size() * sizeof(double));
}

Field5 Field5::uninitialized(int nx, int nz, ColumnRange columns, ColumnRange capacity) {
  if (!columns.empty() && (columns.begin < capacity.begin || columns.end > capacity.end))
    throw std::logic_error("Field5: the capacity does not contain the columns");
  Field5 f;
  f.nx_ = nx;
  f.nz_ = nz;
  f.columns_ = columns;
  f.capacity_ = capacity;
  f.data_ = allocate(f.column_stride() * std::size_t(std::max(0, capacity.width())));
  return f;
}

void Field5::set_columns(ColumnRange columns) {
  if (!has_room_for(columns)) throw std::logic_error("Field5::set_columns: columns outside the capacity");
  columns_ = columns;
}

void Field5::reserve(ColumnRange capacity) {
  if (has_room_for(capacity)) return;
  Field5 next = uninitialized(nx_, nz_, columns_, hull(capacity, capacity_));
  move_out_of(data(), next.data(), size());
  *this = std::move(next);
}

bool Field5::reserve_address_space(ColumnRange limit) {
  if (has_room_for(limit)) return true;
  if (columns_.begin < limit.begin || columns_.end > limit.end) return false;
#if defined(__linux__)
  const std::size_t bytes = column_stride() * sizeof(double) * std::size_t(limit.width());
  // Untouched pages of a private anonymous mapping cost no memory; without
  // swap space reserved for them (MAP_NORESERVE) only what is stored counts.
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return false;
  Storage next(static_cast<double*>(p), detail::StorageRelease{bytes});
  const std::size_t at = column_stride() * std::size_t(columns_.begin - limit.begin);
  move_out_of(data(), next.get() + at, size(), true);
  data_ = std::move(next);
  capacity_ = limit;
  return true;
#else
  return false;
#endif
}

ColumnRange Field5::capacity_for(ColumnRange next, ColumnRange limit) const {
  const int h = headroom(next.width());
  ColumnRange c = next;
  c.begin = next.begin < capacity_.begin ? next.begin - h : std::max(capacity_.begin, next.begin - h);
  c.end = next.end > capacity_.end ? next.end + h : std::min(capacity_.end, next.end + h);
  return {std::max(c.begin, std::min(limit.begin, next.begin)),
          std::min(c.end, std::max(limit.end, next.end))};
}

void Field5::release_spare(ColumnRange limit) {
  const int h = headroom(columns_.width());
  if (capacity_.width() - columns_.width() <= kKeptHeadrooms * h) return;
  const ColumnRange kept = hull(columns_.widened(h, limit.begin, limit.end), columns_);
#if defined(__linux__)
  release_columns(capacity_.begin, std::max(capacity_.begin, kept.begin));
  release_columns(std::min(capacity_.end, kept.end), capacity_.end);
#else
  Field5 next = uninitialized(nx_, nz_, columns_, kept);
  move_out_of(data(), next.data(), size());
  *this = std::move(next);
#endif
}

void Field5::release_columns(int begin, int end) {
  if (end > begin) discard_pages(column(begin), column(end));
}

}  // namespace npblu
