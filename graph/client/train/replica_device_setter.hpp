#pragma once
// Places a replicated model like TensorFlow's tf.train.replica_device_setter: variables (and
// the other ops in `ps_ops`) go to ps tasks, everything else to the worker.
//
//   auto root = scope::new_root().with_device_function(train::replica_device_setter({
//       .ps_tasks = 2, .worker_device = "/job:worker/task:1"}));
//   auto w = ...;   // VariableV2 -> /job:ps/task:0, the next one -> /job:ps/task:1, ...
//
// A device the scope asks for explicitly wins field by field over the setter's choice, as in
// TF (with_device("/job:ps/task:1") pins a variable there). Nodes that must run with another
// node — colocated through _class, or taking a reference (Assign, Apply*, AssignAdd) — are
// left unplaced so the placer puts them on their variable's device.
#include <string>
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::train {

enum class ps_strategy {
  round_robin,      // the i-th variable goes to task i mod ps_tasks
  greedy_by_bytes,  // each variable goes to the ps task holding the fewest bytes so far,
                    // except that a shard of a partitioned variable ("<name>/part_<i>")
                    // avoids the tasks of the variable's earlier shards while it can
};

struct replica_device_setter_options {
  int ps_tasks = 0;  // 0: no ps job, everything goes to the worker device
  std::string ps_device = "/job:ps";
  std::string worker_device = "/job:worker";
  ps_strategy strategy = ps_strategy::round_robin;
  std::vector<std::string> ps_ops = {"VariableV2"};
};

// The device function; each call of it keeps its own assignment state (copies of the
// returned function share it).
device_function replica_device_setter(const replica_device_setter_options& opts);

}  // namespace caflow::train
