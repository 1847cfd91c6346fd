#pragma once
// The balancer's decision log as the reports write it, declared once: one row
// per quantity of a DecisionRecord (balance/balancer_session.hpp), a step
// that moved columns. The "decisions" array of both JSON reports, lu's and
// lu-sim's, is generated from the table (decisions_json), so the two cannot
// drift apart. Adding a quantity: a member of DecisionRecord, set where the
// session logs the step, and one row in kDecisionRecordFields
// (decision_record.cpp).
#include <nlohmann/json.hpp>
#include <span>

#include "balance/balancer_session.hpp"
#include "lu/io/iteration_record.hpp"

namespace npblu {

/// One quantity of a logged decision.
struct DecisionFieldInfo {
  const char* json_name;                  // key of an entry of the JSON reports' "decisions"
  RecordType type;                        // integer: written as an int
  const char* meaning;                    // what the number is (docs/balancing.md lists the same)
  double (*read)(const DecisionRecord&);  // its value
};

/// Every quantity of a logged decision, in the order the JSON writes them.
std::span<const DecisionFieldInfo> decision_record_fields();

/// The "decisions" array: one object per logged step, keys from the table.
nlohmann::json decisions_json(std::span<const DecisionRecord> log);

}  // namespace npblu
