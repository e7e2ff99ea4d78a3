#pragma once
// Which master runs each step on a worker, and which masters the worker monitors, so that a
// master the worker loses (its process died, or the link to it broke) takes its steps here down
// with it. Without this, a step whose master can no longer reach the worker waits here forever:
// the master's abort and cleanup are dropped with the link, and a _Recv or a queue op of the
// step holds its values and kernels. Owned by the worker actor; not thread-safe.
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <caf/actor_addr.hpp>

namespace caflow {

class step_masters {
 public:
  // Records that the worker watches `master` (it registered a graph or runs a step here). True
  // the first time: the caller monitors it (once per master, whatever it does here).
  bool watch(const caf::actor_addr& master);
  // Records that `master` runs `step_id`; true when the caller should monitor it (watch).
  bool add(const caf::actor_addr& master, int64_t step_id);
  // The step is over here.
  void remove(int64_t step_id);
  // `master` is lost: its steps that are not over, forgotten here.
  std::vector<int64_t> lost(const caf::actor_addr& master);

 private:
  std::unordered_set<caf::actor_addr> watched_;
  std::unordered_map<caf::actor_addr, std::unordered_set<int64_t>> steps_;  // by master
  std::unordered_map<int64_t, caf::actor_addr> master_of_;
};

}  // namespace caflow
