#pragma once
// The values of HDF5 attributes of the tables (run_identity.cpp,
// checkpoint_header.cpp): how each type is written, read and serialised
// canonically (the bytes a checkpoint header checksum covers).
#include <hdf5.h>

#include <bit>
#include <cstdint>
#include <string>
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
