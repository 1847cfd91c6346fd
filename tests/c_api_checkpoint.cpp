// The C API's checkpoints (npblu.h): checkpoint now in a run in steps, then a
// restart through npblu_set_option, ending with the same field as the
// uninterrupted run; checkpoints every N iterations and a restart as plain
// options of npblu_run; and the refusals (no run in steps, another problem).
//
//   mpiexec -n P c_api_checkpoint WORKDIR
//
// Exit 0 on pass, 1 on failure.
// npblu.h first: it keeps MPI's C++ bindings (and their library) out.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "npblu.h"

namespace {

int rank_ = 0;

[[noreturn]] void fail(const std::string& what, npblu_solver* h = nullptr) {
  std::printf("FAIL (rank %d): %s%s%s\n", rank_, what.c_str(), h ? ": " : "",
              h ? npblu_error_message(h) : "");
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

void ok(int status, const char* what, npblu_solver* h) {
  if (status != NPBLU_OK) fail(what, h);
}

/// The field_checksum of a JSON report (rank 0 writes it; read after a barrier).
std::string checksum_in(const std::string& json) {
  MPI_Barrier(MPI_COMM_WORLD);
  std::ifstream in(json);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto at = text.find("\"field_checksum\": \"");
  if (at == std::string::npos) fail("no field_checksum in " + json);
  return text.substr(at + 19, 16);
}

/// How many iterations a run's JSON report holds in its history: those it ran itself, after
/// a restart only the remaining ones.
int iterations_in_history(const std::string& json) {
  MPI_Barrier(MPI_COMM_WORLD);
  std::ifstream in(json);
  const auto report = nlohmann::json::parse(in, nullptr, false);
  if (report.is_discarded()) fail("cannot read " + json);
  return static_cast<int>(report["history"]["column_begin"].size());
}

npblu_solver* handle_for(const std::string& json) {
  npblu_solver* h = nullptr;
  if (npblu_create(&h, MPI_COMM_WORLD) != NPBLU_OK) fail("npblu_create");
  ok(npblu_set_report(h, 0), "npblu_set_report", h);
  ok(npblu_set_option(h, "json", json.c_str()), "json option", h);
  return h;
}

/// The reference: class S uninterrupted.
std::string uninterrupted(const std::string& dir) {
  npblu_solver* h = handle_for(dir + "/capi_reference.json");
  ok(npblu_set_class(h, 'S'), "npblu_set_class", h);
  ok(npblu_run(h), "npblu_run", h);
  npblu_destroy(&h);
  return checksum_in(dir + "/capi_reference.json");
}

/// A run in steps checkpointed now at iteration 17, then restarted.
void checkpoint_now_then_restart(const std::string& dir, const std::string& reference) {
  const std::string path = dir + "/capi_now.h5";
  npblu_solver* h = handle_for(dir + "/capi_steps.json");
  ok(npblu_set_class(h, 'S'), "npblu_set_class", h);
  if (npblu_checkpoint(h, path.c_str()) != NPBLU_ERROR_RUN ||
      !std::strstr(npblu_error_message(h), "a run in steps must be started"))
    fail("checkpoint now before a run in steps was not refused clearly", h);
  if (npblu_checkpoint(h, nullptr) != NPBLU_ERROR_ARGUMENT) fail("a null path was not refused");
  ok(npblu_start(h), "npblu_start", h);
  int ran = 0;
  ok(npblu_advance(h, 17, &ran), "npblu_advance", h);
  const std::string data = dir + "/capi_data.txt";  // someone's file: never replaced by a checkpoint
  std::ofstream(data) << "results\n";
  if (npblu_checkpoint(h, data.c_str()) != NPBLU_ERROR_ARGUMENT ||
      !std::strstr(npblu_error_message(h), "is not an npblu checkpoint"))
    fail("a checkpoint onto a file that is no checkpoint was not refused", h);
  std::ifstream kept(data);
  std::string line;
  if (!std::getline(kept, line) || line != "results")
    fail("the refused checkpoint changed the file it named");
  ok(npblu_checkpoint(h, path.c_str()), "npblu_checkpoint", h);
  ok(npblu_checkpoint(h, path.c_str()), "npblu_checkpoint over its own checkpoint", h);
  ok(npblu_advance(h, 1000, &ran), "npblu_advance to the end", h);
  ok(npblu_finish(h), "npblu_finish", h);
  if (npblu_checkpoint(h, path.c_str()) == NPBLU_OK) fail("checkpoint now after npblu_finish was accepted");
  npblu_destroy(&h);

  npblu_solver* r = handle_for(dir + "/capi_restart.json");
  ok(npblu_set_option(r, "restart", path.c_str()), "restart option", r);  // no class: the file's
  ok(npblu_run(r), "npblu_run of the restart", r);
  int verified = 0;
  ok(npblu_verified(r, &verified), "npblu_verified", r);
  npblu_destroy(&r);
  if (!verified) fail("the restart did not verify");
  if (checksum_in(dir + "/capi_restart.json") != reference)
    fail("the restart from the checkpoint taken now ended with another field");
  if (iterations_in_history(dir + "/capi_restart.json") != 33)
    fail("the restart from iteration 17 did not run exactly the remaining 33 iterations");

  // The same restart as a run in steps (npblu_start takes the problem from the file too).
  npblu_solver* s = handle_for(dir + "/capi_restart_steps.json");
  ok(npblu_set_option(s, "restart", path.c_str()), "restart option", s);
  ok(npblu_start(s), "npblu_start of the restart", s);
  int done = 0, total = 0;
  ok(npblu_iterations_done(s, &done, &total), "npblu_iterations_done", s);
  if (done != 17 || total != 50) fail("the stepped restart does not continue at iteration 17 of 50");
  ran = 0;
  ok(npblu_advance(s, 1000, &ran), "npblu_advance of the restart", s);
  if (ran != 33) fail("the stepped restart ran " + std::to_string(ran) + " iterations, not 33");
  ok(npblu_finish(s), "npblu_finish of the restart", s);
  ok(npblu_verified(s, &verified), "npblu_verified", s);
  npblu_destroy(&s);
  if (!verified || checksum_in(dir + "/capi_restart_steps.json") != reference)
    fail("the stepped restart did not end with the uninterrupted field, verified");
}

/// checkpoint-every as an option of npblu_run, then a restart on the wrong class refused.
void options_and_refusal(const std::string& dir, const std::string& reference) {
  const std::string path = dir + "/capi_every.h5";
  npblu_solver* h = handle_for(dir + "/capi_every.json");
  ok(npblu_set_class(h, 'S'), "npblu_set_class", h);
  ok(npblu_set_option(h, "checkpoint", path.c_str()), "checkpoint option", h);
  ok(npblu_set_option(h, "checkpoint-every", "40"), "checkpoint-every option", h);
  ok(npblu_run(h), "npblu_run with checkpoints", h);
  npblu_destroy(&h);
  npblu_solver* r = handle_for(dir + "/capi_every_restart.json");
  ok(npblu_set_class(r, 'S'), "npblu_set_class", r);  // the checkpoint's class: allowed
  ok(npblu_set_option(r, "restart", path.c_str()), "restart option", r);
  ok(npblu_run(r), "npblu_run of the restart", r);
  npblu_destroy(&r);
  if (checksum_in(dir + "/capi_every_restart.json") != reference)
    fail("restart from iteration 40: another field");
  // With the class set as well, an ignored restart would run all 50 to the same field.
  if (iterations_in_history(dir + "/capi_every_restart.json") != 10)
    fail("restart from iteration 40 (class set too) did not run exactly the remaining 10 iterations");
  npblu_solver* w = handle_for(dir + "/capi_refused.json");
  ok(npblu_set_class(w, 'W'), "npblu_set_class", w);
  ok(npblu_set_option(w, "restart", path.c_str()), "restart option", w);
  if (npblu_run(w) != NPBLU_ERROR_RUN ||
      !std::strstr(npblu_error_message(w), "holds a checkpoint of class S"))
    fail("a restart of another class was not refused on this rank", w);
  npblu_destroy(&w);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  const std::string dir = argc > 1 ? argv[1] : ".";
  const std::string reference = uninterrupted(dir);
  checkpoint_now_then_restart(dir, reference);
  options_and_refusal(dir, reference);
  if (rank_ == 0)
    std::printf("C API checkpoints: checkpoint now at 17 and every 40, restarts end with %s\n",
                reference.c_str());
  MPI_Finalize();
  return 0;
}
