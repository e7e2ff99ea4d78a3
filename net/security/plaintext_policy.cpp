#include "net/security/plaintext_policy.hpp"

namespace caflow {

bool all_on_loopback(const cluster_spec& cluster) {
  for (const auto& t : cluster.tasks()) {
    auto hp = split_host_port(t.address);
    if (!hp.ok()) return false;
    if (!is_loopback_host(hp->host)) return false;
  }
  return true;
}

status check_plaintext_allowed(const cluster_spec& cluster, const transport_security& sec,
                               bool insecure) {
  if (sec.tls() || insecure) return {};
  const bool default_id = sec.cluster_id == transport_security{}.cluster_id;
  if (all_on_loopback(cluster) && !default_id) return {};
  if (!all_on_loopback(cluster))
    return errors::failed_precondition(
        "refusing to serve in plaintext across hosts: give --tls-cert, --tls-key and --tls-ca "
        "(mutual TLS), or --insecure to accept that anyone who reaches the port owns the "
        "cluster");
  return errors::failed_precondition(
      "refusing to serve in plaintext with the well-known cluster id '", sec.cluster_id,
      "': give every task and client a secret --cluster-id (all tasks are on this host), "
      "--tls-cert/--tls-key/--tls-ca, or --insecure to accept that anyone who reaches the port "
      "owns the cluster");
}

}  // namespace caflow
