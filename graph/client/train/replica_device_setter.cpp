#include "graph/client/train/replica_device_setter.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "graph/core/device_name.hpp"
#include "graph/core/types.hpp"
#include "graph/ir/op_def.hpp"

namespace caflow::train {
namespace {

// Fields set in `over` replace those of `base` (TF's DeviceSpec.make_merged_spec).
device_spec override_spec(device_spec base, const device_spec& over) {
  if (over.job) base.job = over.job;
  if (over.replica) base.replica = over.replica;
  if (over.task) base.task = over.task;
  if (over.type) base.type = over.type;
  if (over.id) base.id = over.id;
  return base;
}

bool takes_reference(const node_def& n) {
  const op_def* op = op_registry::global().lookup(n.op);
  return op && std::any_of(op->inputs.begin(), op->inputs.end(),
                           [](const arg_def& a) { return a.is_ref; });
}

int64_t variable_bytes(const node_def& n) {
  partial_shape shape;
  dtype type = dtype::invalid;
  if (!get_attr(n, "shape", &shape).ok() || !get_attr(n, "dtype", &type).ok()) return 0;
  if (!shape.fully_defined()) return 0;
  int64_t elements = 1;
  for (int i = 0; i < shape.rank(); ++i) elements *= shape.dim(i);
  return elements * static_cast<int64_t>(dtype_size(type));
}

// "emb" for a shard of a partitioned variable ("emb/part_3", TF's naming), else empty.
std::string_view partitioned_base(std::string_view name) {
  const size_t at = name.rfind("/part_");
  if (at == std::string_view::npos || at + 6 == name.size()) return {};
  for (size_t i = at + 6; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return {};
  return name.substr(0, at);
}

struct setter_state {
  replica_device_setter_options opts;
  device_spec ps, worker;
  bool ps_ok = true, worker_ok = true;
  int next_task = 0;
  std::vector<int64_t> bytes;  // per ps task, for greedy_by_bytes
  // The tasks given to the shards of each partitioned variable so far, for greedy_by_bytes.
  std::map<std::string, std::set<int>, std::less<>> shard_tasks;

  int choose_task(const node_def& n) {
    // Round robin gives consecutive shards consecutive tasks by itself.
    if (opts.strategy == ps_strategy::round_robin) return next_task++ % opts.ps_tasks;
    // Greedy alone could stack equal shards on one lightly loaded task; the point of
    // partitioning is to spread them, so a shard takes the least loaded task that holds no
    // shard of its variable yet, while there is one.
    const std::string_view base = partitioned_base(n.name);
    std::set<int>* used = nullptr;
    if (!base.empty()) {
      auto it = shard_tasks.find(base);
      if (it == shard_tasks.end())
        it = shard_tasks.emplace(std::string(base), std::set<int>{}).first;
      used = &it->second;
      if (static_cast<int>(used->size()) >= opts.ps_tasks) used->clear();  // a new round
    }
    int best = -1;
    for (int t = 0; t < opts.ps_tasks; ++t) {
      if (used && used->count(t)) continue;
      if (best < 0 || bytes[static_cast<size_t>(t)] < bytes[static_cast<size_t>(best)]) best = t;
    }
    bytes[static_cast<size_t>(best)] += variable_bytes(n);
    if (used) used->insert(best);
    return best;
  }

  std::string place(const node_def& n) {
    if (n.attrs.count("_class") || takes_reference(n)) return n.device;
    auto requested = parse_device_spec(n.device);
    // Malformed specs are reported by the placer, naming the node: pass them on unchanged.
    if (!requested.ok()) return n.device;
    const bool is_ps_op =
        std::find(opts.ps_ops.begin(), opts.ps_ops.end(), n.op) != opts.ps_ops.end();
    if (opts.ps_tasks > 0 && is_ps_op) {
      if (!ps_ok) return opts.ps_device;
      device_spec d = ps;
      if (d.job && (!requested->job || requested->job == d.job)) d.task = choose_task(n);
      return to_string(override_spec(d, *requested));
    }
    if (!worker_ok) return opts.worker_device;
    return to_string(override_spec(worker, *requested));
  }
};

}  // namespace

device_function replica_device_setter(const replica_device_setter_options& opts) {
  auto state = std::make_shared<setter_state>();
  state->opts = opts;
  state->bytes.assign(static_cast<size_t>(std::max(opts.ps_tasks, 0)), 0);
  auto ps = parse_device_spec(opts.ps_device);
  auto worker = parse_device_spec(opts.worker_device);
  state->ps_ok = ps.ok();
  state->worker_ok = worker.ok();
  if (ps.ok()) state->ps = *ps;
  if (worker.ok()) state->worker = *worker;
  return [state](const node_def& n) { return state->place(n); };
}

}  // namespace caflow::train
