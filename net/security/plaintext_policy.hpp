#pragma once
// Whether a task may serve without TLS. Without TLS, whoever reaches a task's port can run
// graphs, read and overwrite variables: so plaintext is allowed only where the cluster id can
// act as a shared secret (every task on this host's loopback, which no other user can read
// without root, and an id other than the well-known default), or when the operator asks for
// it with --insecure, which prints a warning.
#include "graph/core/status.hpp"
#include "net/cluster_spec.hpp"
#include "net/security/transport_security.hpp"

namespace caflow {

// OK with TLS, with `insecure`, or on loopback with a non-default cluster id; otherwise
// failed_precondition saying which flags would serve.
status check_plaintext_allowed(const cluster_spec& cluster, const transport_security& sec,
                               bool insecure);

// Whether every task of `cluster` listens on a loopback address (127.0.0.0/8, ::1, localhost).
bool all_on_loopback(const cluster_spec& cluster);

// The warning printed when --insecure serves in plaintext.
inline constexpr const char* insecure_warning =
    "warning: --insecure: plaintext without a cluster secret; anyone who reaches this port "
    "can run graphs and read or overwrite variables";

}  // namespace caflow
