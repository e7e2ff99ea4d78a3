#include "actors/worker/step_masters.hpp"

namespace caflow {

bool step_masters::watch(const caf::actor_addr& master) { return watched_.insert(master).second; }

bool step_masters::add(const caf::actor_addr& master, int64_t step_id) {
  if (!master_of_.emplace(step_id, master).second) return false;  // another run of the step
  steps_[master].insert(step_id);
  return watch(master);
}

void step_masters::remove(int64_t step_id) {
  auto it = master_of_.find(step_id);
  if (it == master_of_.end()) return;
  auto s = steps_.find(it->second);
  if (s != steps_.end() && s->second.erase(step_id) && s->second.empty()) steps_.erase(s);
  master_of_.erase(it);
}

std::vector<int64_t> step_masters::lost(const caf::actor_addr& master) {
  watched_.erase(master);
  auto s = steps_.find(master);
  if (s == steps_.end()) return {};
  std::vector<int64_t> out(s->second.begin(), s->second.end());
  for (int64_t id : out) master_of_.erase(id);
  steps_.erase(s);
  return out;
}

}  // namespace caflow
