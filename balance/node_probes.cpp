#include "balance/node_probes.hpp"

#include <sched.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace npblu {

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// A multiply-add over a small cache-resident array:
// 2 flops per element per sweep, bound by the FPU rather than memory.
double run_kernel(double* x, int n, int sweeps) {
  const double a = 0.999999, b = 1.0e-7;
  for (int s = 0; s < sweeps; ++s) {
    for (int i = 0; i < n; ++i) x[i] = a * x[i] + b;
  }
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += x[i];
  return sum;
}

}  // namespace

double measure_mflops(double max_seconds) {
  constexpr int n = 2048;
  double x[n];
  for (int i = 0; i < n; ++i) x[i] = 1.0 + i * 1e-6;
  const double budget = std::max(0.005, max_seconds * 0.8);
  const double start = now();
  double flops = 0.0, elapsed = 0.0;
  volatile double sink = 0.0;
  int sweeps = 16;
  while (elapsed < budget) {
    sink = sink + run_kernel(x, n, sweeps);
    flops += 2.0 * n * sweeps;
    elapsed = now() - start;
    if (elapsed < budget / 8) sweeps *= 2;
  }
  return flops / elapsed * 1e-6;
}

std::optional<double> bogomips_for_cpu(std::string_view cpuinfo, int cpu) {
  std::istringstream in{std::string(cpuinfo)};
  std::string line;
  int current = -1;
  std::optional<double> shared;  // some kernels print one global BogoMIPS line
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = lower(line.substr(0, colon));
    key.erase(key.find_last_not_of(" \t") + 1);
    const std::string value = line.substr(colon + 1);
    try {
      if (key == "processor") {
        current = std::stoi(value);
      } else if (key == "bogomips") {
        const double v = std::stod(value);
        if (current == cpu) return v;
        if (current < 0) shared = v;
      }
    } catch (const std::exception&) {
    }
  }
  return shared;
}

double read_bogomips() {
  std::ifstream in("/proc/cpuinfo");
  if (!in) throw std::runtime_error("bogomips: cannot read /proc/cpuinfo on this node");
  std::stringstream text;
  text << in.rdbuf();
  const int cpu = sched_getcpu();
  const auto v = bogomips_for_cpu(text.str(), cpu);
  if (!v || !(*v > 0.0)) {
    throw std::runtime_error("bogomips: /proc/cpuinfo has no bogomips entry for cpu " + std::to_string(cpu));
  }
  return *v;
}

}  // namespace npblu
