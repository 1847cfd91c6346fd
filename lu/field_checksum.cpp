#include "lu/field_checksum.hpp"

#include <cstdio>
#include <cstring>
#include <vector>

namespace npblu {

namespace {

// FNV-1a over 64-bit words, each word first scrambled by the splitmix64
// finaliser so that small bit differences spread over the whole state.
std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

struct Digest {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  void add(std::uint64_t word) { h = (h ^ mix(word)) * 0x100000001b3ULL; }
};

}  // namespace

std::uint64_t column_digest(const Field5& f, int j) {
  Digest d;
  const double* p = f.column(j);
  for (std::size_t n = 0; n < f.column_stride(); ++n) {
    std::uint64_t word;
    std::memcpy(&word, p + n, sizeof word);
    d.add(word);
  }
  return d.h;
}

std::string field_checksum(const Field5& f, ColumnRange owned, int ny, const Communicator& comm) {
  const ColumnRange mine{owned.begin == 1 ? 0 : owned.begin, owned.end == ny - 1 ? ny : owned.end};
  std::vector<std::uint64_t> local;
  for (int j = mine.begin; j < mine.end; ++j) local.push_back(column_digest(f, j));
  const std::vector<std::uint64_t> all = comm.gather_concatenated(std::span<const std::uint64_t>(local), 0);
  if (comm.rank() != 0) return {};
  return combine_column_digests(all);
}

std::string combine_column_digests(std::span<const std::uint64_t> column_digests) {
  Digest d;
  for (std::uint64_t h : column_digests) d.add(h);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(d.h));
  return hex;
}

}  // namespace npblu
