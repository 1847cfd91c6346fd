#pragma once
// The tags of npblu's point-to-point messages: one per kind of message.
//
// One tag per sweep is enough because MPI does not let messages overtake: two
// messages from the same sender on the same communicator with the same tag
// match receives in the order they were sent, and receives posted in order
// match in the order they were posted. The pipelined sweeps send their plane
// rows in step order and pre-post the receives in the same step order; every
// receive of a sweep completes before the next sweep on the same tag starts.
// The halo exchange sends one message per direction per exchange and waits
// for all of them; a migration sends at most one message per pair of ranks
// and waits for all of them.
//
// Why every kind has its own tag, even kinds that never share a communicator
// today (the balance library's column mover talks on its own duplicate of the
// caller's communicator, never on the solver's): a message can only match a
// receive of its own kind, whatever communicator a future caller runs two
// protocols on (a balance handle created on the very communicator a solver
// uses, a migration started while a sweep's receives are posted); a tool or
// debugger listing pending messages names the protocol from the tag alone;
// and changing one protocol's message order cannot break another's pairing.
//
// The MPI standard guarantees tags up to 32767 (MPI_TAG_UB); ours are tiny.
#include <mpi.h>

#include <stdexcept>
#include <string>

namespace npblu {

enum MessageTag : int {
  kTagSweepLower = 1,       // plane rows of the lower sweep, to the next stripe
  kTagSweepUpper = 2,       // plane rows of the upper sweep, to the previous stripe
  kTagHaloToPrevious = 3,   // our first halo-depth columns, to the previous stripe
  kTagHaloToNext = 4,       // our last halo-depth columns, to the next stripe
  kTagColumnMigration = 5,  // the solver's fields: columns changing owner (lu/migration)
  kTagCheckpoint = 6,       // stripes to the checkpoint writer and from the reader (rank 0)
  kTagBalancedArrays = 7,   // callers' own arrays moved by the balance library (npblu_balancer_migrate)
  kLargestTag = kTagBalancedArrays
};

/// The implementation's tag bound on `comm` (MPI_TAG_UB).
inline int tag_upper_bound(MPI_Comm comm) {
  int* bound = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm, MPI_TAG_UB, &bound, &found);
  return found && bound ? *bound : 32767;  // the standard's minimum
}

/// Throws unless every tag the solver uses is valid on `comm`. The bound is
/// the same on every rank, so every rank reaches the same verdict.
inline void require_message_tags(MPI_Comm comm) {
  const int bound = tag_upper_bound(comm);
  if (bound < kLargestTag) {
    throw std::runtime_error("this MPI's MPI_TAG_UB is " + std::to_string(bound) +
                             "; npblu needs tags up to " + std::to_string(int(kLargestTag)));
  }
}

}  // namespace npblu
