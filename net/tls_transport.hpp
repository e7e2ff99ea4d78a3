#pragma once
// The actor that opens ports and connects for this process: caf::openssl's connection handling
// redone (net/tls_transport.cpp says why) when TLS is loaded, so that no plain TCP port exists
// in a TLS process; CAF's own middleman actor otherwise. Both speak io::middleman_actor over
// the one BASP broker.
#include <caf/io/middleman_actor.hpp>

namespace caflow {

caf::io::middleman_actor connection_manager(caf::actor_system& sys);

}  // namespace caflow
