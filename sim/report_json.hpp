#pragma once
// lu-sim's JSON report: lu's schema for the parts both have (the run
// identity, the balance summary, the per-iteration history: lu/io/report.hpp),
// and the model's own (its costs, noise, decisions and bottleneck ratio).
#include <nlohmann/json.hpp>

#include "lu/io/run_identity.hpp"
#include "sim/simulation.hpp"

namespace npblu::sim {

const char* mode_name(BalanceMode m);

/// The modelled run's identity (lu/io/run_identity.hpp): its trace's
/// attributes and its report's identity keys. `class_name`: "" for --size.
RunIdentity run_identity(const SimConfig& c, const std::string& class_name, const std::string& command_line);

/// `wall`: seconds the model ran; `history`: with the per-iteration history.
nlohmann::json report_json(const RunIdentity& run, const SimConfig& c, const SimResult& r, double wall,
                           bool history);

}  // namespace npblu::sim
