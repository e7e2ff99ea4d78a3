#pragma once
// A stand-in rendezvous actor that takes every message of the protocol and does nothing with
// it: for tests that must bind a _Send somewhere but do not watch what it sends.
#include <caf/all.hpp>

#include "net/protocol.hpp"

namespace caflow::testing {

inline rendezvous_actor spawn_rendezvous_sink(caf::actor_system& sys) {
  // One unused argument: see spawn_function.hpp.
  return sys.spawn(
      [](rendezvous_actor::pointer, int) -> rendezvous_actor::behavior_type {
        return {[](cf_push_atom, const edge_value&) {}, [](cf_chunk_atom, const edge_chunk&) {},
                [](cf_shm_atom, const edge_shm&) {}, [](cf_batch_atom, const edge_batch&) {},
                [](cf_abort_atom, int64_t, const step_error&) {}, [](cf_cleanup_atom, int64_t) {}};
      },
      0);
}

}  // namespace caflow::testing
