#pragma once
// Quick measurements of a node's power, for weights (seeds: the AFIT
// thesis's Mflops and BogoMIPS weights; DRUM's node power).
#include <optional>
#include <string>
#include <string_view>

namespace npblu {

/// Floating-point rate of this core in Mflop/s, from a fixed kernel run for
/// at most `max_seconds` (at least a few milliseconds).
double measure_mflops(double max_seconds = 0.5);

/// The "bogomips" value of processor `cpu` in /proc/cpuinfo-formatted text
/// (case-insensitive key, as x86 and ARM spell it differently).
std::optional<double> bogomips_for_cpu(std::string_view cpuinfo, int cpu);

/// BogoMIPS of the core this process runs on now. Throws std::runtime_error
/// when /proc/cpuinfo or its entry is unavailable.
double read_bogomips();

}  // namespace npblu
