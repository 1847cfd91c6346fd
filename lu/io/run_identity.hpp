#pragma once
// The run identity, declared once: what ran, where and how (program and
// version, kernels' ISA, MPI library, the problem, ranks and stripes, the
// placement and balancer settings, the emulated speeds). The table of its
// fields (run_identity.cpp) generates the partition trace's root attributes,
// the identity attributes of the checkpoint header (the rows marked for
// it: checkpoint_header.cpp adds their range checks and checksums) and the
// top-level keys of both JSON reports, lu's and lu-sim's, under the same
// names.
//
// Adding a field: its member here and one row in kRunIdentityFields.
#include <hdf5.h>

#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lu/grid.hpp"

namespace npblu {

struct RunIdentity {
  std::string program;  // "lu" | "lu-sim"
  std::string program_version;
  std::string isa;          // the kernels' instruction-set level (lu/isa.hpp); "model" for lu-sim
  std::string mpi_library;  // the first line of MPI_Get_library_version
  std::string command_line;
  std::string start_time;          // ISO 8601, UTC (utc_now)
  std::vector<std::string> hosts;  // per rank
  std::string problem_class = "U";
  GridSize grid;
  int iterations = 0;  // itmax
  double dt = 0.0;
  int ranks = 0;
  std::vector<int> column_widths;  // the stripes the run started on (a checkpoint's: when written)
  std::string weight_source;
  std::vector<double> weights;     // per rank
  std::string balance = "static";  // off | static | diffusive (lu-sim: also best)
  int balance_every = 5;           // the diffusive balancer's settings
  double balance_threshold = 0.02;
  double balance_damping = 1.0;
  std::string emulated_speeds;     // the --emulate-speeds schedule, "" for none
  std::vector<std::string> waits;  // per rank, how it waits for messages (wait_policy_name); lu-sim: "model"
};

/// One field of the identity: an HDF5 attribute and a JSON key, both `name`.
struct RunIdentityField {
  const char* name;
  bool in_checkpoint;  // a checkpoint header attribute (what a restart checks and continues)
  void (*write)(hid_t object, const char* name, const RunIdentity& id);
  void (*read)(hid_t object, const char* name, RunIdentity& id);
  std::string (*bytes)(const RunIdentity& id);              // canonical bytes, for the checkpoint's checksums
  void (*parse)(std::string_view& bytes, RunIdentity& id);  // bytes' inverse: takes the field off the front
  void (*json)(nlohmann::json& out, const char* name, const RunIdentity& id);
};

std::span<const RunIdentityField> run_identity_fields();

/// Every field as an attribute of `object` (the trace's root).
void write_identity_attributes(hid_t object, const RunIdentity& id);
/// Every field as a key of `out` (the JSON reports' top level).
void put_identity(nlohmann::json& out, const RunIdentity& id);

/// The current time as RunIdentity::start_time takes it: "2026-11-22T07:55:04Z".
std::string utc_now();
/// The first line of MPI_Get_library_version (callable before MPI_Init).
std::string mpi_library_version();

}  // namespace npblu
