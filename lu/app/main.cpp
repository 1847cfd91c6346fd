// lu: the NPB LU benchmark on columnwise stripes, any number of MPI ranks.
#include <mpi.h>

#include <iostream>

#include "lu/app/benchmark.hpp"
#include "lu/app/options.hpp"

namespace {

constexpr int kExitFailed = 1;  // ran, but did not verify
constexpr int kExitUsage = 2;   // bad input, nothing ran

class MpiSession {
 public:
  MpiSession(int* argc, char*** argv) { MPI_Init(argc, argv); }
  ~MpiSession() { MPI_Finalize(); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

std::string command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) s += ' ';
    s += argv[i];
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  MpiSession mpi(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const bool root = rank == 0;
  // Every rank parses the same arguments and reaches the same verdict.
  npblu::ParsedCommandLine parsed;
  try {
    parsed = npblu::parse_command_line(argc, argv);
  } catch (const std::exception& e) {
    if (root) std::cerr << "lu: error: " << e.what() << std::endl;
    return kExitUsage;
  }
  if (!parsed.options) {
    if (root) std::cout << parsed.help;
    return 0;
  }
  try {
    const auto outcome =
        npblu::run_benchmark(*parsed.options, MPI_COMM_WORLD, &std::cout, command_line(argc, argv));
    return outcome.successful ? 0 : kExitFailed;
  } catch (const npblu::RunError& e) {
    if (root) std::cerr << "lu: error: " << e.what() << std::endl;
    return kExitUsage;
  }
}
