#include "actors/server/local_masters.hpp"

#include <map>
#include <mutex>

#include <caf/actor_cast.hpp>

namespace caflow {
namespace {

struct local_master {
  transport_security security;
  caf::actor_addr master;  // weak: the table keeps no server's actor alive
};

struct table {
  std::mutex mu;
  std::map<std::string, local_master> by_target;
};

table& masters() {
  static table t;
  return t;
}

bool same_security(const transport_security& a, const transport_security& b) {
  return a.cluster_id == b.cluster_id && a.cert == b.cert && a.key == b.key && a.ca == b.ca;
}

}  // namespace

void register_local_master(const std::string& target, const transport_security& security,
                           const master_actor& master) {
  auto& t = masters();
  std::lock_guard<std::mutex> lock(t.mu);
  t.by_target[target] = {security, master.address()};
}

void unregister_local_master(const std::string& target) {
  auto& t = masters();
  std::lock_guard<std::mutex> lock(t.mu);
  t.by_target.erase(target);
}

caf::actor_addr find_local_master(const std::string& target, const transport_security& security) {
  auto& t = masters();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.by_target.find(target);
  if (it == t.by_target.end() || !same_security(it->second.security, security)) return {};
  return it->second.master;
}

}  // namespace caflow
