#include "lu/io/iteration_record.hpp"

#include <string_view>

namespace npblu {

namespace {

using enum RecordType;

// The table of the per-iteration record: one row per quantity.
constexpr RecordFieldInfo kIterationRecordFields[] = {
    {"column_begin", "column_begin", integer, "column",
     "first global j column (0-based) owned by each rank during the iteration",
     [](const IterationRecord& r) { return double(r.owned.begin); }},
    {"column_end", "column_end", integer, "column", "one past the last global j column owned by each rank",
     [](const IterationRecord& r) { return double(r.owned.end); }},
    {"compute_seconds", "compute_s", real, "s",
     "time computing (rhs, sweeps, updates), emulated slowdown included",
     [](const IterationRecord& r) { return r.compute; }},
    {"wait_seconds", "wait_s", real, "s",
     "time in the sweep pipelines and the halo exchange, mostly blocked in MPI_Wait",
     [](const IterationRecord& r) { return r.wait; }},
    {"migration_seconds", "migration_s", real, "s",
     "balancing decision and column migration after the iteration",
     [](const IterationRecord& r) { return r.migration; }},
    {"emulated_speed", "speed", real, "1", "emulated fraction of real speed (1: not slowed)",
     [](const IterationRecord& r) { return r.speed; }},
    {"on_cpu_seconds", "on_cpu_s", real, "s", "time running on a core (Linux schedstat; 0 where unavailable)",
     [](const IterationRecord& r) { return r.on_cpu; }},
    {"run_delay_seconds", "run_delay_s", real, "s",
     "time runnable but waiting for a core (shared with other ranks or jobs)",
     [](const IterationRecord& r) { return r.run_delay; }},
    {"slept_waiting", "slept", integer, "1",
     "1: waited for messages sleeping between polls (--wait sleep, or auto on a shared core); 0: spinning",
     [](const IterationRecord& r) { return r.slept ? 1.0 : 0.0; }},
#ifdef NPBLU_TEST_EXTRA_RECORD_FIELD
    // The test of "adding a field is one edit" (tests/schema_check.py): this row alone.
    {"busy_seconds", "busy_s", real, "s", "compute plus wait (test build only)",
     [](const IterationRecord& r) { return r.compute + r.wait; }},
#endif
};

// The rows RecordField names are where it says.
constexpr bool named_rows_in_place() {
  constexpr std::string_view kNamed[] = {"column_begin",   "column_end",        "compute_seconds",
                                         "wait_seconds",   "migration_seconds", "emulated_speed",
                                         "on_cpu_seconds", "run_delay_seconds", "slept_waiting"};
  for (std::size_t i = 0; i < std::size(kNamed); ++i)
    if (i >= std::size(kIterationRecordFields) || kIterationRecordFields[i].trace_name != kNamed[i])
      return false;
  return true;
}
static_assert(named_rows_in_place(), "the rows RecordField names must come first, in its order");

}  // namespace

std::span<const RecordFieldInfo> iteration_record_fields() { return kIterationRecordFields; }

}  // namespace npblu
