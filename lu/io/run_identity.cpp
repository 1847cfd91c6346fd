#include "lu/io/run_identity.hpp"

#include <mpi.h>

#include <ctime>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "lu/io/attribute_values.hpp"
#include "lu/speed_emulation.hpp"

namespace npblu {

using attribute::canonical;
using attribute::get;
using attribute::parse;
using attribute::put;

namespace {

// "emulated_speeds" in JSON: null, or {"spec": the schedule's text,
// "schedule": [{"from_iteration", "speeds"}...]}.
nlohmann::json emulation_json(const std::string& spec) {
  if (spec.empty()) return nullptr;
  nlohmann::json segments = nlohmann::json::array();
  const SpeedSchedule schedule = SpeedSchedule::parse(spec);
  for (const auto& seg : schedule.segments())
    segments.push_back({{"from_iteration", seg.from_iteration}, {"speeds", seg.speeds}});
  return {{"spec", spec}, {"schedule", segments}};
}

std::vector<int> grid_sizes(const GridSize& g) { return {g.nx, g.ny, g.nz}; }

// The row of a plain member: the same value in HDF5, the checksum and JSON.
#define NPBLU_FIELD(member)                                                    \
  [](hid_t f, const char* n, const RunIdentity& id) { put(f, n, id.member); }, \
      [](hid_t f, const char* n, RunIdentity& id) { get(f, n, id.member); },   \
      [](const RunIdentity& id) { return canonical(id.member); },              \
      [](std::string_view& in, RunIdentity& id) { parse(in, id.member); },     \
      [](nlohmann::json& j, const char* n, const RunIdentity& id) { j[n] = id.member; }

// The table of the run identity: name, in the checkpoint header, then how
// to write, read, serialise and report it.
const RunIdentityField kRunIdentityFields[] = {
    {"program", false, NPBLU_FIELD(program)},
    {"program_version", true, NPBLU_FIELD(program_version)},
    {"isa", true, NPBLU_FIELD(isa)},
    {"mpi_library", false, NPBLU_FIELD(mpi_library)},
    {"command_line", true, NPBLU_FIELD(command_line)},
    {"start_time", false, NPBLU_FIELD(start_time)},
    {"hosts", false, NPBLU_FIELD(hosts)},
    {"class", true, NPBLU_FIELD(problem_class)},
    {"grid", true, [](hid_t f, const char* n, const RunIdentity& id) { put(f, n, grid_sizes(id.grid)); },
     [](hid_t f, const char* n, RunIdentity& id) {
       std::vector<int> g;
       get(f, n, g);
       if (g.size() != 3) throw std::runtime_error("attribute 'grid' is not three sizes");
       id.grid = {g[0], g[1], g[2]};
     },
     [](const RunIdentity& id) { return canonical(grid_sizes(id.grid)); },
     [](std::string_view& in, RunIdentity& id) {
       std::vector<int> g;
       parse(in, g);
       if (g.size() != 3) throw std::runtime_error("malformed canonical bytes");
       id.grid = {g[0], g[1], g[2]};
     },
     [](nlohmann::json& j, const char* n, const RunIdentity& id) { j[n] = grid_sizes(id.grid); }},
    {"iterations", true, NPBLU_FIELD(iterations)},
    {"dt", true, NPBLU_FIELD(dt)},
    {"ranks", true, NPBLU_FIELD(ranks)},
    {"column_widths", true, NPBLU_FIELD(column_widths)},
    {"weight_source", false, NPBLU_FIELD(weight_source)},
    {"weights", false, NPBLU_FIELD(weights)},
    {"balance", true, NPBLU_FIELD(balance)},
    {"balance_every", true, NPBLU_FIELD(balance_every)},
    {"balance_threshold", true, NPBLU_FIELD(balance_threshold)},
    {"balance_damping", true, NPBLU_FIELD(balance_damping)},
    {"emulated_speeds", true,
     [](hid_t f, const char* n, const RunIdentity& id) { put(f, n, id.emulated_speeds); },
     [](hid_t f, const char* n, RunIdentity& id) { get(f, n, id.emulated_speeds); },
     [](const RunIdentity& id) { return canonical(id.emulated_speeds); },
     [](std::string_view& in, RunIdentity& id) { parse(in, id.emulated_speeds); },
     [](nlohmann::json& j, const char* n, const RunIdentity& id) {
       j[n] = emulation_json(id.emulated_speeds);
     }},
    {"waits", false, NPBLU_FIELD(waits)},
};
#undef NPBLU_FIELD

}  // namespace

std::span<const RunIdentityField> run_identity_fields() { return kRunIdentityFields; }

void write_identity_attributes(hid_t object, const RunIdentity& id) {
  for (const RunIdentityField& f : kRunIdentityFields) f.write(object, f.name, id);
}

void put_identity(nlohmann::json& out, const RunIdentity& id) {
  for (const RunIdentityField& f : kRunIdentityFields) f.json(out, f.name, id);
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string version(text, std::min<std::size_t>(length, sizeof text));
  if (const auto end = version.find_first_of("\r\n"); end != std::string::npos) version.resize(end);
  while (!version.empty() && (version.back() == ' ' || version.back() == '\0')) version.pop_back();
  return version;
}

}  // namespace npblu
