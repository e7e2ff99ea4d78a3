#pragma once
// Certificates signed by a cluster's CA (cluster_ca.hpp): one per task of a cluster spec,
// DIR/<job>-<task>.pem and .key, with the task's host as subjectAltName, and client ones,
// DIR/<name>.pem and .key, for caflow-train, caflow-console and sessions.
#include <string>
#include <vector>

#include "certificate.hpp"
#include "net/cluster_spec.hpp"

namespace caflow::certs {

// One certificate to make: its files are DIR/<stem>.pem and DIR/<stem>.key.
struct planned_certificate {
  std::string stem;
  certificate_request request;
};

// Every task of `cluster`, by job then task: stem "ps-0", common name "/job:ps/replica:0/task:0",
// the task's host (without port) as its only subjectAltName.
std::vector<planned_certificate> plan_cluster(const cluster_spec& cluster, int days);

// A client: stem and common name `name`, no subjectAltName (nothing connects to a client by
// address). INVALID_ARGUMENT unless the name is 1-64 of [A-Za-z0-9._-], starts with neither
// '.' nor '-', and is not "ca" (its files would be the CA's).
status_or<planned_certificate> plan_client(const std::string& name, int days);

// Signs every planned certificate with DIR's CA and writes its files (keys 0600). Refused with
// nothing written when the CA cannot be loaded, or when any of the files exists and !force.
// Returns the files written.
status_or<std::vector<std::string>> issue(const std::string& dir,
                                          const std::vector<planned_certificate>& plan, bool force);

}  // namespace caflow::certs
