#pragma once
// The answers of the admin interface, computed from what a task's roles keep. The worker and
// the master each hand over a view of their state (the worker, a worker_view; the master, a
// master_snapshot) and these functions turn it into the console's tables, so the roles
// themselves carry only a message handler. Every table starts with a "task" column.
#include <string>

#include "actors/device/device_actor.hpp"
#include <vector>

#include "graph/core/status.hpp"
#include "net/admin_protocol.hpp"

namespace caflow {

class device;
class executor;
class trace_recorder;

// What the worker of a task shows the admin. Pointers stay valid for the call only.
struct worker_view {
  std::string task;
  std::vector<device*> devices;  // CPU:0 first
  // What each device's actor answered for `devices`; empty: read from `devices` directly.
  std::vector<device_status> device_stats;
  std::vector<const executor*> graphs;  // every registered partition
  trace_recorder* trace = nullptr;
};

// Worker-side commands: devices, pending, vars, var NAME, trace on|off|collect.
// Errors: an unknown command or malformed arguments.
status_or<admin_reply> answer_worker_query(const worker_view& w, const admin_query& q);
// Master-side commands: sessions, graphs, steps.
status_or<admin_reply> answer_master_query(const std::string& task, const master_snapshot& m,
                                           const admin_query& q);

// `vars` and `var NAME` once every task has answered: each partitioned variable whose shards
// are in `shards` becomes one entry (its full name, dtype and full shape, the L2 norm or the
// first values of the whole, its shard count and bytes) followed by one row per shard in row
// order (task, name, shape, and in "partition" its rows, bytes and device), appended to
// `table`. A note says when the shards found do not hold every row (a task did not answer).
void render_partitioned_variables(const admin_query& q, std::vector<variable_shard> shards,
                                  admin_table& table);

// Checks a console command's words before anything is asked (unknown command, wrong arity).
status validate_query(const admin_query& q);

// Which role answers a command: "worker", "master", "admin" (answered by the admin itself),
// or empty for an unknown command.
std::string role_for_command(const std::string& command);

// Human-readable sizes and durations for tables: "1.5 MiB", "830 us", "12.4 ms", "3m05s".
std::string format_bytes(int64_t bytes);
std::string format_micros(double us);
std::string format_seconds(double s);

}  // namespace caflow
