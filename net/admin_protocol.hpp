#pragma once
// Messages of the admin interface: caflow-console asks one task's admin actor a question about
// the whole cluster; that admin asks its own master and worker, and every peer's admin about
// their task alone, and merges the answers into one table.
//
//   console --(cf_admin_atom, query)--> admin of task A --(cf_admloc, query)--> admin of B, C
//                                          |  (cf_inspect) to A's master / worker
//   reply: one admin_table (a "task" column tells the rows apart), plus trace events for
//   "trace collect". Unreachable peers become notes (or "lost" rows for "cluster").
//
// Every answer is computed from state the roles already keep; nothing here is on a step's path.
#include <cstdint>
#include <string>
#include <vector>

#include <caf/atom.hpp>
#include <caf/fwd.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "net/step_reports.hpp"

namespace caflow {

// The admin's name on a task's port, next to "cf_worker" and "cf_master".
constexpr caf::atom_value admin_role = caf::atom("cf_admin");

using cf_admin_atom = caf::atom_constant<caf::atom("cf_admin")>;      // a cluster-wide question
using cf_admin_local_atom = caf::atom_constant<caf::atom("cf_admloc")>;  // this task only
using cf_inspect_atom = caf::atom_constant<caf::atom("cf_inspect")>;  // admin -> master/worker
using cf_kill_step_atom = caf::atom_constant<caf::atom("cf_killstp")>;  // admin -> master
using cf_summary_atom = caf::atom_constant<caf::atom("cf_summary")>;  // client -> master

// A console command split into words: {"var", "dense/kernel"}, {"trace", "on"}.
struct admin_query {
  std::vector<std::string> words;
};

// Rows of strings under named columns; notes are lines shown after the table.
struct admin_table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> notes;
};

// A partitioned variable's shard, as a worker answers `vars` or `var NAME` for it: the admin
// that merges every task's answer shows the shards of one variable as one entry
// (render_partitioned_variables in actors/admin/admin_queries.hpp).
struct variable_shard {
  std::string full_name;   // "emb"
  std::string name;        // "emb/part_1"
  std::string task;
  std::string device;
  std::string dtype;
  std::string shape;       // the shard's: "[3,4]"
  std::string full_shape;  // "[10,4]"
  int64_t full_rows = 0;
  int64_t offset = 0;      // its first row in the full variable
  int64_t rows = 0;
  int64_t bytes = 0;       // of its value (0 when uninitialized)
  bool initialized = false;
  double sum_squares = 0;
  int64_t num_elements = 0;
  std::vector<std::string> values{};  // `var NAME` only: its first values, formatted
};

// The "tasks" question's reach column: how a console reaches each task of the cluster through
// the task it asked. A task's device filters bound the tasks it contacts, so a console asks the
// ones outside them itself (apps/console/admin_client.hpp).
inline constexpr const char* reach_here = "this task";
inline constexpr const char* reach_through = "through this task";
inline constexpr const char* reach_outside = "outside its device filters";

struct admin_reply {
  admin_table table;
  std::vector<trace_event> events;
  int64_t clock_us = 0;  // the answering task's system_clock when it answered
  // The answering task's kernel boot id: tasks with the same one read the same system clock.
  std::string clock_domain{};
  // `vars` / `var NAME`: shards of partitioned variables, not in `table` until merged.
  std::vector<variable_shard> shards{};
};

// What a master tells its admin: per session, its graph, cached partitions and step latency.
struct partition_summary {
  int64_t signature = 0;  // index of the run signature within the session
  std::string task;
  std::string device;
  int64_t nodes = 0;
};

struct latency_summary {
  int64_t count = 0;   // steps finished (all time)
  int64_t errors = 0;  // of them, failed
  int64_t window = 0;  // steps the percentiles and the rate are computed over
  double p50_us = 0;
  double p99_us = 0;
  double steps_per_s = 0;
};

struct session_summary {
  std::string handle;
  int64_t graph_nodes = 0;
  int64_t signatures = 0;
  std::vector<int64_t> running;  // ids of the session's steps in flight
  latency_summary latency;
  std::vector<partition_summary> partitions;
  summary_report summaries{};  // the last scalar of each tag, by tag
};

struct master_snapshot {
  std::vector<session_summary> sessions;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, admin_query& x) {
  return f(caf::meta::type_name("admin_query"), x.words);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, admin_table& x) {
  return f(caf::meta::type_name("admin_table"), x.columns, x.rows, x.notes);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, variable_shard& x) {
  return f(caf::meta::type_name("variable_shard"), x.full_name, x.name, x.task, x.device, x.dtype,
           x.shape, x.full_shape, x.full_rows, x.offset, x.rows, x.bytes, x.initialized, x.sum_squares,
           x.num_elements, x.values);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, admin_reply& x) {
  return f(caf::meta::type_name("admin_reply"), x.table, x.events, x.clock_us,
           x.clock_domain, x.shards);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, partition_summary& x) {
  return f(caf::meta::type_name("partition_summary"), x.signature, x.task, x.device, x.nodes);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, latency_summary& x) {
  return f(caf::meta::type_name("latency_summary"), x.count, x.errors, x.window, x.p50_us,
           x.p99_us, x.steps_per_s);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, session_summary& x) {
  return f(caf::meta::type_name("session_summary"), x.handle, x.graph_nodes, x.signatures,
           x.running, x.latency, x.partitions, x.summaries);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, master_snapshot& x) {
  return f(caf::meta::type_name("master_snapshot"), x.sessions);
}

// The admin role of a task.
using admin_actor = caf::typed_actor<
    caf::replies_to<cf_admin_atom, admin_query>::with<admin_reply>,
    caf::replies_to<cf_admin_local_atom, admin_query>::with<admin_reply>>;

// Announces the admin types on a config (add_wire_types calls it).
void add_admin_wire_types(caf::actor_system_config& cfg);

}  // namespace caflow
