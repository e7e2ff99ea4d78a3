#pragma once
// The actor that opens ports and connects for this process: CAF's middleman actor redone with
// guarded connections (net/basp_guard.hpp: BASP headers checked before the broker allocates,
// handshake deadlines, a per-address limit), TLS ones (caf::openssl's connection handling
// redone, net/tls_transport.cpp says why) when TLS is loaded, so that no plain TCP port exists
// in a TLS process, plain TCP ones otherwise. It speaks io::middleman_actor over the one BASP
// broker.
#include <caf/io/middleman_actor.hpp>

namespace caflow {

caf::io::middleman_actor connection_manager(caf::actor_system& sys);

}  // namespace caflow
