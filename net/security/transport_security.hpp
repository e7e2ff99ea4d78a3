#pragma once
// Who may talk to a process: the cluster it belongs to and, optionally, the certificates that
// authenticate it. Every process of a cluster (servers, clients, the console) must agree.
//
//   transport_security sec{.cert = "client.pem", .key = "client.key", .ca = "ca.pem",
//                          .cluster_id = "training-42"};
//   CAFLOW_RETURN_IF_ERROR(validate(sec));   // before any actor system starts
#include <string>

#include "graph/core/status.hpp"

namespace caflow {

struct transport_security {
  // PEM files. All three set: every connection is TLS and both ends must show a certificate
  // signed by `ca` (mutual authentication). All three empty: plain TCP.
  std::string cert{};
  std::string key{};
  std::string ca{};
  // Compared in CAF's handshake ("middleman.app-identifiers"): a process with another
  // identifier cannot connect, with or without TLS.
  std::string cluster_id = "caflow";

  bool tls() const { return !cert.empty() || !key.empty() || !ca.empty(); }
};

// OK when the settings are usable: none or all of the three files given, each one readable and
// parsed (a PEM certificate, an unencrypted PEM key that belongs to it, a PEM CA certificate),
// a non-empty cluster id. Errors name the flag and the file.
status validate(const transport_security& sec);

}  // namespace caflow
