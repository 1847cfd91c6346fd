#pragma once
// The per-iteration record of a run, declared once: one row per quantity
// that every rank reports for every timed iteration (the table is in
// iteration_record.cpp). Everything that stores or prints the record is
// generated from the table: the gather of every rank's records to rank 0
// (run_history.cpp), the datasets of the partition trace (trace_writer.cpp,
// "iterations/<trace_name>") and the "history" object of both JSON reports,
// lu's and lu-sim's (history_json). The checkpoint saves no history: a
// restarted run's trace and report number their records on from the
// checkpoint's iteration.
//
// Adding a quantity: one row in kIterationRecordFields (iteration_record.cpp)
// that reads it from IterationRecord. Naming it in C++ (RecordField) is only
// needed where code computes with it. The table is in the .cpp, not here, so
// that a build with one more row recompiles that file alone
// (tests/schema_check.py builds lu and lu-sim so).
#include <span>

#include "lu/solver.hpp"

namespace npblu {

enum class RecordType { integer, real };

/// One quantity of the per-iteration record.
struct RecordFieldInfo {
  const char* trace_name;                  // dataset "iterations/<trace_name>" of the partition trace
  const char* json_name;                   // key of the JSON reports' "history" object
  RecordType type;                         // integer: stored as int in the trace and JSON
  const char* units;                       // the trace dataset's "units" attribute: "s", "column", "1"
  const char* meaning;                     // the trace dataset's "meaning" attribute
  double (*read)(const IterationRecord&);  // the value of one rank's record
};

/// The fields C++ code computes with, by their row in the table (the table's
/// first rows, in this order: a static_assert checks it).
enum class RecordField {
  column_begin,
  column_end,
  compute,
  wait,
  migration,
  speed,
  on_cpu,
  run_delay,
  slept
};

/// Every field of the record, in the order of the table.
std::span<const RecordFieldInfo> iteration_record_fields();

}  // namespace npblu
