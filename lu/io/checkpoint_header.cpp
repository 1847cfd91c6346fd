#include "lu/io/checkpoint_header.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "balance/partition.hpp"
#include "lu/io/hdf5_objects.hpp"
#include "lu/run/run_config.hpp"
#include "lu/speed_emulation.hpp"
#include "verify/class_table.hpp"

namespace npblu {

namespace {

using Header = CheckpointHeader;

// ---- canonical serialisation: the bytes a checksum covers ----
std::string canonical(int v) { return std::to_string(v) + ";"; }
std::string canonical(double v) { return std::to_string(std::bit_cast<std::uint64_t>(v)) + ";"; }
std::string canonical(const std::string& v) { return std::to_string(v.size()) + ":" + v; }
template <class T>
std::string canonical(const std::vector<T>& values) {
  std::string out = std::to_string(values.size()) + "[";
  for (const auto& v : values) out += canonical(v);
  return out + "]";
}

std::uint64_t fnv1a(const std::string& bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

std::string hex(std::uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

// ---- attributes of each type: write, read ----
void put(hid_t f, const char* n, int v) { hdf5::array_attribute(f, n, H5T_NATIVE_INT, std::vector<int>{v}); }
void put(hid_t f, const char* n, double v) {
  hdf5::array_attribute(f, n, H5T_NATIVE_DOUBLE, std::vector<double>{v});
}
void put(hid_t f, const char* n, const std::string& v) { hdf5::string_attribute(f, n, v); }
void put(hid_t f, const char* n, const std::vector<int>& v) {
  hdf5::array_attribute(f, n, H5T_NATIVE_INT, v);
}
void put(hid_t f, const char* n, const std::vector<double>& v) {
  hdf5::array_attribute(f, n, H5T_NATIVE_DOUBLE, v);
}
void put(hid_t f, const char* n, const std::vector<std::string>& v) { hdf5::strings_attribute(f, n, v); }

void get(hid_t f, const char* n, int& v) { v = hdf5::read_scalar_attribute<int>(f, n, H5T_NATIVE_INT); }
void get(hid_t f, const char* n, double& v) {
  v = hdf5::read_scalar_attribute<double>(f, n, H5T_NATIVE_DOUBLE);
}
void get(hid_t f, const char* n, std::string& v) { v = hdf5::read_string_attribute(f, n); }
void get(hid_t f, const char* n, std::vector<int>& v) {
  v = hdf5::read_array_attribute<int>(f, n, H5T_NATIVE_INT);
}
void get(hid_t f, const char* n, std::vector<double>& v) {
  v = hdf5::read_array_attribute<double>(f, n, H5T_NATIVE_DOUBLE);
}
void get(hid_t f, const char* n, std::vector<std::string>& v) { v = hdf5::read_strings_attribute(f, n); }

// ---- the values' ranges: "" or what is wrong ----
std::string none(const Header&) { return {}; }

std::string finite_non_negative(const std::vector<double>& values) {
  for (const double v : values)
    if (!std::isfinite(v) || v < 0.0) return "holds " + std::to_string(v) + ", not a finite time >= 0";
  return {};
}

std::string class_problem(const Header& h) {
  if (h.problem_class == 'U') return {};
  const auto pc = find_problem_class(h.problem_class);
  if (!pc) return "is not a class letter (S W A B C D E F, or U)";
  if (h.grid != GridSize{pc->n, pc->n, pc->n} || h.iterations != pc->itmax || h.dt != pc->dt)
    return "is " + std::string(1, pc->name) + ", but the grid, iterations or dt are not that class's";
  return {};
}

std::string grid_problem(const Header& h) {
  const GridSize& g = h.grid;
  for (const int n : {g.nx, g.ny, g.nz})
    if (n < kMinimumGridPoints)
      return "has a size " + std::to_string(n) + " below " + std::to_string(kMinimumGridPoints);
  if (std::int64_t(5) * g.nx * g.nz > INT32_MAX) return "is too large";
  return {};
}

std::string widths_problem(const Header& h) {
  const auto& w = h.column_widths;
  if (w.empty()) return "is empty";
  for (const int v : w)
    if (v < kMinimumColumnWidth)
      return "has a width " + std::to_string(v) + " below " + std::to_string(kMinimumColumnWidth);
  const long sum = std::accumulate(w.begin(), w.end(), 0L);
  if (sum != h.grid.ny - 2)
    return "sums to " + std::to_string(sum) + ", not to the grid's " + std::to_string(h.grid.ny - 2) +
           " interior columns";
  return {};
}

std::string emulation_problem(const Header& h) {
  if (h.emulated_speeds.empty()) return {};
  try {
    (void)SpeedSchedule::parse(h.emulated_speeds);
  } catch (const std::invalid_argument& e) {
    return std::string("is not a speed schedule: ") + e.what();
  }
  return {};
}

std::string phases_problem(const Header& h, const std::vector<double>& values) {
  if (values.size() != h.phase_names.size())
    return "holds " + std::to_string(values.size()) + " values for " + std::to_string(h.phase_names.size()) +
           " phases";
  return finite_non_negative(values);
}

std::string hex_digest_problem(const std::string& digest) {
  if (digest.size() != 16 || digest.find_first_not_of("0123456789abcdef") != std::string::npos)
    return "is not a 16-digit hex digest";
  return {};
}

struct HeaderAttribute {
  const char* name;
  void (*write)(hid_t, const char*, const Header&);
  void (*read)(hid_t, const char*, Header&);
  std::string (*bytes)(const Header&);
  std::string (*problem)(const Header&);
};

// One row per attribute of a plain member: write, read, serialise.
#define NPBLU_MEMBER(member)                                            \
  [](hid_t f, const char* n, const Header& h) { put(f, n, h.member); }, \
      [](hid_t f, const char* n, Header& h) { get(f, n, h.member); },   \
      [](const Header& h) { return canonical(h.member); }

// Every attribute of the header, in the order they are written and checked.
// field_checksum is written at commit, with header_checksums (not a row: it
// holds the rows' digests).
const HeaderAttribute kHeaderAttributes[] = {
    {"format_version", NPBLU_MEMBER(format_version),
     [](const Header& h) {
       return h.format_version == kCheckpointFormatVersion ? std::string()
                                                           : std::string("is another version");
     }},
    {"program_version", NPBLU_MEMBER(program_version), none},
    {"isa", NPBLU_MEMBER(isa), none},
    {"created", NPBLU_MEMBER(created), none},
    {"command_line", NPBLU_MEMBER(command_line), none},
    {"class", [](hid_t f, const char* n, const Header& h) { put(f, n, std::string(1, h.problem_class)); },
     [](hid_t f, const char* n, Header& h) {
       std::string c;
       get(f, n, c);
       if (c.size() != 1) throw std::runtime_error("attribute 'class' is not one letter");
       h.problem_class = c[0];
     },
     [](const Header& h) { return canonical(std::string(1, h.problem_class)); }, class_problem},
    {"grid",
     [](hid_t f, const char* n, const Header& h) {
       put(f, n, std::vector<int>{h.grid.nx, h.grid.ny, h.grid.nz});
     },
     [](hid_t f, const char* n, Header& h) {
       std::vector<int> g;
       get(f, n, g);
       if (g.size() != 3) throw std::runtime_error("attribute 'grid' is not three sizes");
       h.grid = {g[0], g[1], g[2]};
     },
     [](const Header& h) {
       return canonical(std::vector<int>{h.grid.nx, h.grid.ny, h.grid.nz});
     },
     grid_problem},
    {"iterations", NPBLU_MEMBER(iterations),
     [](const Header& h) { return h.iterations >= 1 ? std::string() : std::string("is below 1"); }},
    {"dt", NPBLU_MEMBER(dt),
     [](const Header& h) {
       return std::isfinite(h.dt) && h.dt > 0 ? std::string() : std::string("is not a positive number");
     }},
    {"iteration", NPBLU_MEMBER(iteration),
     [](const Header& h) {
       return h.iteration >= 0 && h.iteration <= h.iterations
                  ? std::string()
                  : "is outside 0.." + std::to_string(h.iterations);
     }},
    {"timed_seconds", NPBLU_MEMBER(timed_seconds),
     [](const Header& h) { return finite_non_negative({h.timed_seconds}); }},
    {"ranks", NPBLU_MEMBER(ranks),
     [](const Header& h) {
       return h.ranks == static_cast<int>(h.column_widths.size())
                  ? std::string()
                  : "is " + std::to_string(h.ranks) + ", but 'column_widths' has " +
                        std::to_string(h.column_widths.size()) + " widths";
     }},
    {"column_widths", NPBLU_MEMBER(column_widths), widths_problem},
    {"balance", NPBLU_MEMBER(balance),
     [](const Header& h) {
       return h.balance == "off" || h.balance == "static" || h.balance == "diffusive"
                  ? std::string()
                  : std::string("is not off, static or diffusive");
     }},
    {"balance_every", NPBLU_MEMBER(balance_every),
     [](const Header& h) { return h.balance_every >= 1 ? std::string() : std::string("is below 1"); }},
    {"balance_threshold", NPBLU_MEMBER(balance_threshold),
     [](const Header& h) { return finite_non_negative({h.balance_threshold}); }},
    {"balance_damping", NPBLU_MEMBER(balance_damping),
     [](const Header& h) {
       return h.balance_damping > 0.0 && h.balance_damping <= 1.0 ? std::string()
                                                                  : std::string("is not in (0, 1]");
     }},
    {"balance_moved_columns", NPBLU_MEMBER(balance_moved_columns),
     [](const Header& h) {
       return h.balance_moved_columns >= 0 ? std::string() : std::string("is negative");
     }},
    {"emulated_speeds", NPBLU_MEMBER(emulated_speeds), emulation_problem},
    {"phase_names", NPBLU_MEMBER(phase_names), none},
    {"phase_seconds_min", NPBLU_MEMBER(phase_seconds_min),
     [](const Header& h) { return phases_problem(h, h.phase_seconds_min); }},
    {"phase_seconds_max", NPBLU_MEMBER(phase_seconds_max),
     [](const Header& h) { return phases_problem(h, h.phase_seconds_max); }},
    {"phase_seconds_mean", NPBLU_MEMBER(phase_seconds_mean),
     [](const Header& h) { return phases_problem(h, h.phase_seconds_mean); }},
    {"field_checksum", NPBLU_MEMBER(field_checksum),
     [](const Header& h) { return hex_digest_problem(h.field_checksum); }},
};
#undef NPBLU_MEMBER

constexpr const char* kChecksums = "header_checksums";

std::string digest_of(const HeaderAttribute& a, const Header& h) {
  return hex(fnv1a(std::string(a.name) + '\0' + a.bytes(h)));
}

bool is_commit_attribute(const HeaderAttribute& a) { return std::string_view(a.name) == "field_checksum"; }

// name -> digest, from the "name=hex" strings; a malformed entry is refused.
std::map<std::string, std::string> stored_digests(hid_t file) {
  std::map<std::string, std::string> digests;
  for (const std::string& entry : hdf5::read_strings_attribute(file, kChecksums)) {
    const auto eq = entry.find('=');
    if (eq == std::string::npos || !digests.emplace(entry.substr(0, eq), entry.substr(eq + 1)).second)
      throw std::runtime_error(std::string("attribute '") + kChecksums + "' is malformed");
  }
  return digests;
}

void check_digests(hid_t file, const Header& h) {
  auto digests = stored_digests(file);
  for (const HeaderAttribute& a : kHeaderAttributes) {
    const auto it = digests.find(a.name);
    if (it == digests.end())
      throw std::runtime_error(std::string("attribute '") + a.name + "' has no checksum in '" + kChecksums +
                               "'");
    if (it->second != digest_of(a, h))
      throw std::runtime_error(std::string("attribute '") + a.name +
                               "' does not match its checksum (the header was edited or is corrupt)");
    digests.erase(it);
  }
  if (!digests.empty())
    throw std::runtime_error(std::string("attribute '") + kChecksums + "' holds a checksum of '" +
                             digests.begin()->first + "', not an attribute of this format");
}

}  // namespace

void write_header_attributes(hid_t file, const CheckpointHeader& h) {
  for (const HeaderAttribute& a : kHeaderAttributes)
    if (!is_commit_attribute(a)) a.write(file, a.name, h);
}

void write_header_checksums(hid_t file, const CheckpointHeader& h) {
  std::vector<std::string> entries;
  for (const HeaderAttribute& a : kHeaderAttributes) {
    if (is_commit_attribute(a)) a.write(file, a.name, h);
    entries.push_back(std::string(a.name) + "=" + digest_of(a, h));
  }
  hdf5::strings_attribute(file, kChecksums, entries);
}

CheckpointHeader read_header_attributes(hid_t file) {
  CheckpointHeader h;
  for (const HeaderAttribute& a : kHeaderAttributes) {
    try {
      a.read(file, a.name, h);
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      const std::string named = std::string("attribute '") + a.name + "'";
      throw std::runtime_error("unreadable checkpoint header: " +
                               (what.rfind(named, 0) == 0 ? what : named + " unreadable (" + what + ")"));
    }
  }
  check_digests(file, h);
  for (const HeaderAttribute& a : kHeaderAttributes) {
    if (const std::string problem = a.problem(h); !problem.empty())
      throw std::runtime_error(std::string("attribute '") + a.name + "' " + problem);
  }
  return h;
}

}  // namespace npblu
