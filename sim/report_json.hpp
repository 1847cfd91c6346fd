#pragma once
// lu-sim's JSON report: lu's schema for the parts both have (the balance
// summary, the emulated speeds, the per-iteration history: lu/io/report.hpp),
// and the model's own (its costs, noise, decisions and bottleneck ratio).
#include <nlohmann/json.hpp>

#include "sim/simulation.hpp"

namespace npblu::sim {

const char* mode_name(BalanceMode m);

/// `wall`: seconds the model ran; `history`: with the per-iteration history.
nlohmann::json report_json(const SimConfig& c, const SimResult& r, double wall, bool history);

}  // namespace npblu::sim
