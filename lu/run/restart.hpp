#pragma once
// A run continued from a checkpoint (--restart) and the checkpoints a run
// writes: the configuration completed from the checkpoint's header, the
// state restored into the solver, the header of the run as it stands.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lu/io/checkpoint.hpp"
#include "lu/io/run_identity.hpp"
#include "lu/migration/runtime_balancing.hpp"
#include "lu/run/run_context.hpp"

namespace npblu {

/// Step 0: the run's configuration: `config`, completed from the --restart
/// checkpoint if any (whose header is then in `header`; one-line warnings,
/// if any, in `warnings`). Problem options may be omitted (the checkpoint's
/// are taken) or must give exactly its problem; a run on as many ranks as
/// the checkpoint's with no placement option of its own continues on the
/// checkpoint's stripes, its emulated speeds and balancer settings.
RunConfig resolve_restart(const RunConfig& config, MPI_Comm comm, std::optional<CheckpointHeader>& header,
                          std::vector<std::string>& warnings);

/// After start(): u and the iteration count from the checkpoint, then the
/// run's header (print_header) and a line saying where it continues from.
/// The restarted run's balancer continues the checkpointed one's evidence,
/// step prices and counts when both run the diffusive balancer on as many
/// ranks (per-rank evidence means nothing on other ranks: it then starts
/// afresh). Throws RunError on every rank, naming the attribute, when the
/// state is refused (every rank holds the same header).
void continue_balancer(const RunContext& ctx, const CheckpointHeader& header, RuntimeBalancing* balancing);

void restore(const RunContext& ctx, const CheckpointHeader& header, LuSolver& solver,
             const std::function<void()>& print_header);

/// Collective: everything a checkpoint holds besides the field: the run's
/// identity with the stripes as they are now, the timed seconds and phase
/// timers reduced over ranks.
CheckpointHeader checkpoint_header(const RunContext& ctx, const RunIdentity& run, const LuSolver& solver,
                                   const RuntimeBalancing* balancing);

}  // namespace npblu
