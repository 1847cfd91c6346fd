#include "lu/io/checkpoint_header.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "balance/partition.hpp"
#include "lu/io/attribute_values.hpp"
#include "lu/io/hdf5_objects.hpp"
#include "lu/run/run_config.hpp"
#include "lu/speed_emulation.hpp"
#include "verify/class_table.hpp"

namespace npblu {

namespace {

using Header = CheckpointHeader;

using attribute::canonical;
using attribute::get;
using attribute::parse;
using attribute::put;

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

// ---- the values' ranges: "" or what is wrong ----
std::string none(const Header&) { return {}; }

std::string finite_non_negative(const std::vector<double>& values) {
  for (const double v : values)
    if (!std::isfinite(v) || v < 0.0) return "holds " + std::to_string(v) + ", not a finite time >= 0";
  return {};
}

std::string all_finite(const std::vector<double>& values) {
  for (const double v : values)
    if (!std::isfinite(v)) return "holds " + std::to_string(v) + ", not a finite number";
  return {};
}

std::string class_problem(const Header& h) {
  const RunIdentity& r = h.run;
  if (r.problem_class.size() != 1) return "is not one letter";
  if (r.problem_class == "U") return {};
  const auto pc = find_problem_class(r.problem_class[0]);
  if (!pc) return "is not a class letter (S W A B C D E F, or U)";
  if (r.grid != GridSize{pc->n, pc->n, pc->n} || r.iterations != pc->itmax || r.dt != pc->dt)
    return "is " + std::string(1, pc->name) + ", but the grid, iterations or dt are not that class's";
  return {};
}

std::string grid_problem(const Header& h) {
  const GridSize& g = h.run.grid;
  for (const int n : {g.nx, g.ny, g.nz})
    if (n < kMinimumGridPoints)
      return "has a size " + std::to_string(n) + " below " + std::to_string(kMinimumGridPoints);
  if (5.0 * g.nx * g.nz > INT32_MAX) return "is too large";  // (in int64, 5 x 2^31 x 2^31 overflows)
  return {};
}

std::string widths_problem(const Header& h) {
  const auto& w = h.run.column_widths;
  if (w.empty()) return "is empty";
  for (const int v : w)
    if (v < kMinimumColumnWidth)
      return "has a width " + std::to_string(v) + " below " + std::to_string(kMinimumColumnWidth);
  const long sum = std::accumulate(w.begin(), w.end(), 0L);
  if (sum != h.run.grid.ny - 2)
    return "sums to " + std::to_string(sum) + ", not to the grid's " + std::to_string(h.run.grid.ny - 2) +
           " interior columns";
  return {};
}

std::string emulation_problem(const Header& h) {
  if (h.run.emulated_speeds.empty()) return {};
  try {
    (void)SpeedSchedule::parse(h.run.emulated_speeds);
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
  std::string name;
  std::function<void(hid_t, const char*, const Header&)> write;
  std::function<void(hid_t, const char*, Header&)> read;
  std::function<std::string(const Header&)> bytes;
  std::function<void(std::string_view&, Header&)> parse;  // bytes' inverse
  std::function<std::string(const Header&)> problem;
};

// One row per attribute of a plain member: write, read, serialise.
#define NPBLU_MEMBER(member)                                            \
  [](hid_t f, const char* n, const Header& h) { put(f, n, h.member); }, \
      [](hid_t f, const char* n, Header& h) { get(f, n, h.member); },   \
      [](const Header& h) { return canonical(h.member); },              \
      [](std::string_view& in, Header& h) { parse(in, h.member); }

std::string at_least_one(int v) { return v >= 1 ? std::string() : std::string("is below 1"); }

// The ranges of the run identity's checkpoint fields (the rest: none).
std::string identity_problem(std::string_view name, const Header& h) {
  const RunIdentity& r = h.run;
  if (name == "class") return class_problem(h);
  if (name == "grid") return grid_problem(h);
  if (name == "iterations") return at_least_one(r.iterations);
  if (name == "dt") return std::isfinite(r.dt) && r.dt > 0 ? std::string() : "is not a positive number";
  if (name == "ranks")
    return r.ranks == static_cast<int>(r.column_widths.size())
               ? std::string()
               : "is " + std::to_string(r.ranks) + ", but 'column_widths' has " +
                     std::to_string(r.column_widths.size()) + " widths";
  if (name == "column_widths") return widths_problem(h);
  if (name == "balance")
    return r.balance == "off" || r.balance == "static" || r.balance == "diffusive"
               ? std::string()
               : "is not off, static or diffusive";
  if (name == "balance_every") return at_least_one(r.balance_every);
  if (name == "balance_threshold") return finite_non_negative({r.balance_threshold});
  if (name == "balance_damping")
    return r.balance_damping > 0.0 && r.balance_damping <= 1.0 ? std::string() : "is not in (0, 1]";
  if (name == "emulated_speeds") return emulation_problem(h);
  return {};
}

// The rows of the run identity (run_identity.cpp) that a checkpoint holds.
void add_identity_rows(std::vector<HeaderAttribute>& rows) {
  for (const RunIdentityField& f : run_identity_fields()) {
    if (!f.in_checkpoint) continue;
    const std::string name = f.name;
    rows.push_back({name, [&f](hid_t file, const char* n, const Header& h) { f.write(file, n, h.run); },
                    [&f](hid_t file, const char* n, Header& h) { f.read(file, n, h.run); },
                    [&f](const Header& h) { return f.bytes(h.run); },
                    [&f](std::string_view& in, Header& h) { f.parse(in, h.run); },
                    [name](const Header& h) { return identity_problem(name, h); }});
  }
}

// The checkpoint's own rows.
void add_checkpoint_rows(std::vector<HeaderAttribute>& rows) {
  rows.push_back({"created", NPBLU_MEMBER(created), none});
  rows.push_back({"iteration", NPBLU_MEMBER(iteration), [](const Header& h) {
                    return h.iteration >= 0 && h.iteration <= h.run.iterations
                               ? std::string()
                               : "is outside 0.." + std::to_string(h.run.iterations);
                  }});
  rows.push_back({"timed_seconds", NPBLU_MEMBER(timed_seconds),
                  [](const Header& h) { return finite_non_negative({h.timed_seconds}); }});
  rows.push_back({"balance_moved_columns", NPBLU_MEMBER(balance_moved_columns), [](const Header& h) {
                    return h.balance_moved_columns >= 0 ? std::string() : std::string("is negative");
                  }});
  rows.push_back({"balancer_state", NPBLU_MEMBER(balancer_state),
                  [](const Header& h) { return all_finite(h.balancer_state); }});
  rows.push_back({"phase_names", NPBLU_MEMBER(phase_names), none});
  rows.push_back({"phase_seconds_min", NPBLU_MEMBER(phase_seconds_min),
                  [](const Header& h) { return phases_problem(h, h.phase_seconds_min); }});
  rows.push_back({"phase_seconds_max", NPBLU_MEMBER(phase_seconds_max),
                  [](const Header& h) { return phases_problem(h, h.phase_seconds_max); }});
  rows.push_back({"phase_seconds_mean", NPBLU_MEMBER(phase_seconds_mean),
                  [](const Header& h) { return phases_problem(h, h.phase_seconds_mean); }});
  rows.push_back({"field_checksum", NPBLU_MEMBER(field_checksum),
                  [](const Header& h) { return hex_digest_problem(h.field_checksum); }});
}

// Every attribute of the header, in the order they are written and checked:
// the format version, the run identity's checkpoint fields, the checkpoint's
// own. field_checksum is written at commit, with header_checksums (not a
// row: it holds the rows' digests).
const std::vector<HeaderAttribute>& header_attributes() {
  static const std::vector<HeaderAttribute> rows = [] {
    std::vector<HeaderAttribute> r;
    r.push_back({"format_version", NPBLU_MEMBER(format_version), [](const Header& h) {
                   return h.format_version == kCheckpointFormatVersion ? std::string()
                                                                       : std::string("is another version");
                 }});
    add_identity_rows(r);
    add_checkpoint_rows(r);
    return r;
  }();
  return rows;
}
#undef NPBLU_MEMBER

constexpr const char* kChecksums = "header_checksums";

std::string digest_of(const HeaderAttribute& a, const Header& h) {
  return hex(fnv1a(a.name + '\0' + a.bytes(h)));
}

bool is_commit_attribute(const HeaderAttribute& a) { return a.name == "field_checksum"; }

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
  for (const HeaderAttribute& a : header_attributes()) {
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
  for (const HeaderAttribute& a : header_attributes())
    if (!is_commit_attribute(a)) a.write(file, a.name.c_str(), h);
}

void write_header_checksums(hid_t file, const CheckpointHeader& h) {
  std::vector<std::string> entries;
  for (const HeaderAttribute& a : header_attributes()) {
    if (is_commit_attribute(a)) a.write(file, a.name.c_str(), h);
    entries.push_back(a.name + "=" + digest_of(a, h));
  }
  hdf5::strings_attribute(file, kChecksums, entries);
}

std::string header_bytes(const CheckpointHeader& h) {
  std::string bytes;
  for (const HeaderAttribute& a : header_attributes()) bytes += a.bytes(h);
  return bytes;
}

CheckpointHeader header_from_bytes(std::string_view bytes) {
  CheckpointHeader h;
  for (const HeaderAttribute& a : header_attributes()) a.parse(bytes, h);
  if (!bytes.empty()) throw std::runtime_error("malformed canonical bytes");
  return h;
}

CheckpointHeader read_header_attributes(hid_t file) {
  CheckpointHeader h;
  for (const HeaderAttribute& a : header_attributes()) {
    try {
      a.read(file, a.name.c_str(), h);
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      const std::string named = std::string("attribute '") + a.name + "'";
      throw std::runtime_error("unreadable checkpoint header: " +
                               (what.rfind(named, 0) == 0 ? what : named + " unreadable (" + what + ")"));
    }
  }
  check_digests(file, h);
  for (const HeaderAttribute& a : header_attributes()) {
    if (const std::string problem = a.problem(h); !problem.empty())
      throw std::runtime_error(std::string("attribute '") + a.name + "' " + problem);
  }
  return h;
}

}  // namespace npblu
