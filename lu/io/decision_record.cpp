#include "lu/io/decision_record.hpp"

namespace npblu {

namespace {

using enum RecordType;

// The table of a logged decision: one row per quantity.
constexpr DecisionFieldInfo kDecisionRecordFields[] = {
    {"iteration", integer, "the timed iteration after which the step moved columns",
     [](const DecisionRecord& d) { return double(d.iteration); }},
    {"moved_columns", integer, "columns moved, summed over the boundaries",
     [](const DecisionRecord& d) { return double(d.moved_columns); }},
    {"predicted_imbalance_before", real,
     "slowest rank's compute over the mean at the estimated per-column costs, for the stripes before the "
     "step",
     [](const DecisionRecord& d) { return d.predicted_before; }},
    {"predicted_imbalance_after", real, "the same for the stripes after the step",
     [](const DecisionRecord& d) { return d.predicted_after; }},
    {"predicted_bottleneck_ratio_before", real,
     "slowest rank's compute over the best whole-column partition's at the estimated costs, within the "
     "max widths, before the step (1: none could do better)",
     [](const DecisionRecord& d) { return d.predicted_quality_before; }},
    {"predicted_bottleneck_ratio_after", real, "the same for the stripes after the step",
     [](const DecisionRecord& d) { return d.predicted_quality_after; }},
    {"measured_imbalance_before", real, "slowest rank's compute over the mean over the window decided on",
     [](const DecisionRecord& d) { return d.measured_before; }},
    {"measured_imbalance_after", real, "the same over the next window (0: the run ended first)",
     [](const DecisionRecord& d) { return d.measured_after; }},
    {"gain_s", real, "seconds per iteration the step was expected to save, net of the costs' uncertainty",
     [](const DecisionRecord& d) { return d.gain; }},
    {"horizon", real, "iterations the gain was counted over",
     [](const DecisionRecord& d) { return d.horizon; }},
    {"price_s", real, "seconds the step was priced at (the last measured steps' mean, or the prior)",
     [](const DecisionRecord& d) { return d.price; }},
    {"price_paid_s", real, "seconds the step took, the slowest rank's migration (0: not measured)",
     [](const DecisionRecord& d) { return d.price_paid; }},
};

}  // namespace

std::span<const DecisionFieldInfo> decision_record_fields() { return kDecisionRecordFields; }

nlohmann::json decisions_json(std::span<const DecisionRecord> log) {
  nlohmann::json list = nlohmann::json::array();
  for (const DecisionRecord& d : log) {
    nlohmann::json entry = nlohmann::json::object();
    for (const DecisionFieldInfo& f : kDecisionRecordFields) {
      const double v = f.read(d);
      if (f.type == RecordType::integer)
        entry[f.json_name] = static_cast<long long>(v);
      else
        entry[f.json_name] = v;
    }
    list.push_back(std::move(entry));
  }
  return list;
}

}  // namespace npblu
