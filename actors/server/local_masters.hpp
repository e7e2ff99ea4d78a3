#pragma once
// The masters of the servers running in this process, by target ("caflow://host:port"), so
// that a session in the same process reaches its master without the middleman, as TF's
// LocalMaster does: each request is a pointer handed to the master's mailbox instead of a BASP
// round trip over loopback TCP. It is the one process-wide table in caflow, because "which
// servers live in this process" is a fact about the process, not about any one actor system.
#include <string>

#include <caf/actor_addr.hpp>

#include "net/protocol.hpp"
#include "net/security/transport_security.hpp"

namespace caflow {

void register_local_master(const std::string& target, const transport_security& security,
                           const master_actor& master);
void unregister_local_master(const std::string& target);

// The master serving `target` in this process, when its server was started with the same
// cluster id and certificates as `security` (otherwise a session must go through the network
// and be refused there like any other client); an invalid address when there is none.
caf::actor_addr find_local_master(const std::string& target, const transport_security& security);

}  // namespace caflow
