#pragma once
// The values of HDF5 attributes of the tables (run_identity.cpp,
// checkpoint_header.cpp): how each type is written, read, serialised
// canonically (the bytes a checkpoint header checksum covers) and parsed back.
#include <hdf5.h>

#include <bit>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "lu/io/hdf5_objects.hpp"

namespace npblu::attribute {

inline std::string canonical(int v) { return std::to_string(v) + ";"; }
inline std::string canonical(double v) { return std::to_string(std::bit_cast<std::uint64_t>(v)) + ";"; }
inline std::string canonical(const std::string& v) { return std::to_string(v.size()) + ":" + v; }
template <class T>
std::string canonical(const std::vector<T>& values) {
  std::string out = std::to_string(values.size()) + "[";
  for (const auto& v : values) out += canonical(v);
  return out + "]";
}

// The inverse of canonical: reads one value from the front of `in` and
// drops it (the bytes a checkpoint header is broadcast in); throws
// std::runtime_error on bytes canonical did not write.
inline std::string_view take_until(std::string_view& in, char end) {
  const auto at = in.find(end);
  if (at == std::string_view::npos) throw std::runtime_error("malformed canonical bytes");
  const std::string_view head = in.substr(0, at);
  in.remove_prefix(at + 1);
  return head;
}
inline std::uint64_t take_number(std::string_view& in, char end) {
  return std::stoull(std::string(take_until(in, end)));
}
inline void parse(std::string_view& in, int& v) { v = std::stoi(std::string(take_until(in, ';'))); }
inline void parse(std::string_view& in, double& v) { v = std::bit_cast<double>(take_number(in, ';')); }
inline void parse(std::string_view& in, std::string& v) {
  const std::size_t n = take_number(in, ':');
  if (n > in.size()) throw std::runtime_error("malformed canonical bytes");
  v = std::string(in.substr(0, n));
  in.remove_prefix(n);
}
template <class T>
void parse(std::string_view& in, std::vector<T>& values) {
  values.resize(take_number(in, '['));
  for (auto& v : values) parse(in, v);
  if (in.empty() || in.front() != ']') throw std::runtime_error("malformed canonical bytes");
  in.remove_prefix(1);
}

inline void put(hid_t f, const char* n, int v) {
  hdf5::array_attribute(f, n, H5T_NATIVE_INT, std::vector<int>{v});
}
inline void put(hid_t f, const char* n, double v) {
  hdf5::array_attribute(f, n, H5T_NATIVE_DOUBLE, std::vector<double>{v});
}
inline void put(hid_t f, const char* n, const std::string& v) { hdf5::string_attribute(f, n, v); }
inline void put(hid_t f, const char* n, const std::vector<int>& v) {
  hdf5::array_attribute(f, n, H5T_NATIVE_INT, v);
}
inline void put(hid_t f, const char* n, const std::vector<double>& v) {
  hdf5::array_attribute(f, n, H5T_NATIVE_DOUBLE, v);
}
inline void put(hid_t f, const char* n, const std::vector<std::string>& v) {
  hdf5::strings_attribute(f, n, v);
}

inline void get(hid_t f, const char* n, int& v) {
  v = hdf5::read_scalar_attribute<int>(f, n, H5T_NATIVE_INT);
}
inline void get(hid_t f, const char* n, double& v) {
  v = hdf5::read_scalar_attribute<double>(f, n, H5T_NATIVE_DOUBLE);
}
inline void get(hid_t f, const char* n, std::string& v) { v = hdf5::read_string_attribute(f, n); }
inline void get(hid_t f, const char* n, std::vector<int>& v) {
  v = hdf5::read_array_attribute<int>(f, n, H5T_NATIVE_INT);
}
inline void get(hid_t f, const char* n, std::vector<double>& v) {
  v = hdf5::read_array_attribute<double>(f, n, H5T_NATIVE_DOUBLE);
}
inline void get(hid_t f, const char* n, std::vector<std::string>& v) {
  v = hdf5::read_strings_attribute(f, n);
}

}  // namespace npblu::attribute
