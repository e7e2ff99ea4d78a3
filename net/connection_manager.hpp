#pragma once
// The actor that opens ports and connects for this process: CAF's middleman actor redone with
// guarded connections (net/security/basp_guard.hpp: BASP headers checked before the broker
// allocates, handshake deadlines, a per-address limit). Its connections are TLS ones when TLS is
// loaded (caf::openssl's connection handling redone, net/connection_manager.cpp says why), so
// that no plain TCP port exists in a TLS process; plain TCP ones otherwise, which move on to
// shared-memory rings between tasks of one host (net/ring/). It speaks io::middleman_actor over
// the one BASP broker.
#include <caf/io/middleman_actor.hpp>

namespace caflow {

caf::io::middleman_actor connection_manager(caf::actor_system& sys);

}  // namespace caflow
