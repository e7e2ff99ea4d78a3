#pragma once
// CAF's printer (the actor behind caf::aout) as an event-based actor on the network loop.
//
// CAF 0.17's own printer is a blocking actor, so every actor system runs a thread that only
// waits for lines nobody sends: caflow prints through its logger, and aout is reached only by
// CAF's default handlers (an unexpected message, an unhandled exception). This one speaks the
// same messages (add, flush, delete, and both redirects) and runs where the loop scheduler runs
// every other actor (net/loop/loop_scheduler.hpp). Lines go to stdout, or to the file or local
// group a redirect names, as CAF's do.
#include <caf/fwd.hpp>

namespace caflow {

// Spawns the printer, hidden and lazily initialized: it is scheduled on its first line.
caf::actor spawn_loop_printer(caf::actor_system& sys);

}  // namespace caflow
