#include "actors/admin/admin_queries.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "actors/executor/executor.hpp"
#include "actors/executor/trace_recorder.hpp"
#include "devices/device.hpp"
#include "kernels/resources/variable.hpp"

namespace caflow {
namespace {

// How many values `var NAME` shows before it says how many it left out.
constexpr int64_t max_shown_values = 12;

std::string fixed(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

std::string shape_of(const variable& v, const tensor& value) {
  return value.initialized() ? value.shape().to_string() : v.declared_shape().to_string();
}

// A variable's value where the console can read it: a GPU variable's is copied to the host.
tensor host_value(const variable& v) {
  const tensor value = v.snapshot();
  auto host = to_host(value);
  return host.ok() ? std::move(host).value() : tensor();
}

// The first `n` values of `t`, as the console prints them.
std::vector<std::string> first_values(const tensor& t, int64_t n) {
  std::vector<std::string> out;
  n = std::min(t.num_elements(), n);
  visit_dtype(t.type(), [&]<class T>() {
    const T* p = t.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      std::ostringstream os;
      if constexpr (std::is_same_v<T, bool>) os << (p[i] ? "true" : "false");
      else if constexpr (sizeof(T) == 1) os << static_cast<int>(p[i]);
      else os << p[i];
      out.push_back(os.str());
    }
  });
  return out;
}

// "{0, 1, 2, ... (8 more)}": `shown` of `total` values.
std::string values_text(const std::vector<std::string>& shown, int64_t total) {
  std::string out = "{";
  for (size_t i = 0; i < shown.size(); ++i) (out += i ? ", " : "") += shown[i];
  const int64_t more = total - static_cast<int64_t>(shown.size());
  if (more > 0) out += ", ... (" + std::to_string(more) + " more)";
  return out + "}";
}

std::string values_of(const tensor& t) {
  return values_text(first_values(t, max_shown_values), t.num_elements());
}

double sum_of_squares(const tensor& t) {
  double sum = 0;
  visit_dtype(t.type(), [&]<class T>() {
    const T* p = t.data<T>();
    for (int64_t i = 0, n = t.num_elements(); i < n; ++i) {
      const double x = static_cast<double>(p[i]);
      sum += x * x;
    }
  });
  return sum;
}

// "rows [4,7)": where a shard lies in its partitioned variable.
std::string rows_text(int64_t offset, int64_t rows) {
  return "rows [" + std::to_string(offset) + "," + std::to_string(offset + rows) + ")";
}

// A partitioned variable's shard as the admin merges it (render_partitioned_variables).
variable_shard shard_of(const worker_view& w, const device& d, const variable& v,
                        const tensor& value, bool with_values) {
  const variable_partition& p = *v.partition();
  variable_shard s;
  s.full_name = p.full_name;
  s.name = v.name();
  s.task = w.task;
  s.device = d.name();
  s.dtype = dtype_name(v.type());
  s.shape = shape_of(v, value);
  s.full_shape = p.slice.full.to_string();
  s.full_rows = p.slice.full.rank() > 0 ? p.slice.full.dim(0) : 1;
  s.offset = p.slice.start.empty() ? 0 : p.slice.start[0];
  s.rows = p.slice.length.empty() ? 1 : p.slice.length[0];
  s.initialized = value.initialized();
  if (s.initialized) {
    s.bytes = static_cast<int64_t>(value.byte_size());
    s.sum_squares = sum_of_squares(value);
    s.num_elements = value.num_elements();
    if (with_values) s.values = first_values(value, max_shown_values);
  }
  return s;
}

std::vector<std::shared_ptr<variable>> variables_of(device& dev) {
  std::vector<std::shared_ptr<variable>> out;
  for (const auto& [container, name] : dev.resources().keys())
    if (auto v = dev.resources().lookup<variable>(container, name)) out.push_back(std::move(v));
  return out;
}

status expect_words(const admin_query& q, size_t n, const char* usage) {
  if (q.words.size() != n) return errors::invalid_argument("usage: ", usage);
  return {};
}

status_or<admin_reply> devices(const worker_view& w) {
  admin_reply r;
  r.table.columns = {"task", "device", "in use", "peak", "allocations", "limit"};
  std::vector<device_status> stats = w.device_stats;
  if (stats.empty())
    for (const device* d : w.devices) stats.push_back(status_of(*d));
  for (const device_status& s : stats)
    r.table.rows.push_back({w.task, s.name, format_bytes(s.bytes_in_use),
                            format_bytes(s.peak_bytes_in_use), std::to_string(s.num_allocs),
                            s.bytes_limit ? format_bytes(s.bytes_limit) : "none"});
  return r;
}

status_or<admin_reply> pending(const worker_view& w) {
  admin_reply r;
  r.table.columns = {"task", "step", "edge", "recv node", "from", "waiting"};
  const auto now = std::chrono::steady_clock::now();
  std::vector<std::pair<waiting_recv, const executor*>> all;
  for (const executor* ex : w.graphs)
    for (waiting_recv& wr : ex->waiting_recvs()) all.emplace_back(std::move(wr), ex);
  // Longest waiting first: the likeliest to be stuck.
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return a.first.since < b.first.since;
  });
  for (const auto& [wr, ex] : all) {
    const double age_us = std::chrono::duration<double, std::micro>(now - wr.since).count();
    r.table.rows.push_back({w.task, std::to_string(wr.step_id), wr.node->key, wr.node->name,
                            wr.node->peer, format_micros(age_us)});
  }
  return r;
}

// Shards of partitioned variables go to r.shards, for the admin to show each partitioned
// variable as one entry once every task has answered.
status_or<admin_reply> vars(const worker_view& w) {
  admin_reply r;
  r.table.columns = {"task", "variable", "dtype", "shape", "l2 norm", "partition"};
  for (device* d : w.devices)
    for (const auto& v : variables_of(*d)) {
      const tensor value = host_value(*v);
      if (v->partition()) {
        r.shards.push_back(shard_of(w, *d, *v, value, false));
        continue;
      }
      r.table.rows.push_back(
          {w.task, v->name(), dtype_name(v->type()), shape_of(*v, value),
           value.initialized() ? fixed(std::sqrt(sum_of_squares(value)), 6) : "uninitialized",
           ""});
    }
  return r;
}

// NAME is a variable's own name (a shard's too: "emb/part_1"), or a partitioned variable's
// full name ("emb"), whose shards the admin puts together.
status_or<admin_reply> var(const worker_view& w, const admin_query& q) {
  CAFLOW_RETURN_IF_ERROR(expect_words(q, 2, "var NAME"));
  admin_reply r;
  r.table.columns = {"task", "variable", "dtype", "shape", "values", "partition"};
  for (device* d : w.devices)
    for (const auto& v : variables_of(*d)) {
      const auto& p = v->partition();
      if (v->name() != q.words[1] && !(p && p->full_name == q.words[1])) continue;
      const tensor value = host_value(*v);
      if (v->name() != q.words[1]) {
        r.shards.push_back(shard_of(w, *d, *v, value, true));
        continue;
      }
      const variable_shard s = p ? shard_of(w, *d, *v, value, false) : variable_shard{};
      r.table.rows.push_back(
          {w.task, v->name(), dtype_name(v->type()), shape_of(*v, value),
           value.initialized() ? values_of(value) : "uninitialized",
           p ? rows_text(s.offset, s.rows) + " of " + p->full_name + " " + s.full_shape : ""});
    }
  return r;
}

status_or<admin_reply> trace(const worker_view& w, const admin_query& q) {
  if (q.words.size() != 2 && q.words.size() != 3)
    return errors::invalid_argument("usage: trace on|off [TASK] | trace save FILE");
  const std::string& what = q.words[1];
  admin_reply r;
  if (what == "collect") {
    r.events = w.trace->collect();
  } else if (what == "on" || what == "off") {
    w.trace->set_enabled(what == "on");
  } else {
    return errors::invalid_argument("trace takes on, off or save FILE, not '", what, "'");
  }
  r.table.columns = {"task", "tracing", "events", "dropped"};
  r.table.rows.push_back({w.task, w.trace->enabled() ? "on" : "off",
                          std::to_string(w.trace->size()), std::to_string(w.trace->dropped())});
  return r;
}

// "CPU:0" of "/job:ps/replica:0/task:1/device:CPU:0".
std::string short_device(const std::string& device) {
  const size_t at = device.rfind("/device:");
  return at == std::string::npos ? device : device.substr(at + 8);
}

std::string running_steps(const session_summary& s) {
  std::string out;
  for (int64_t id : s.running) (out += out.empty() ? "" : " ") += std::to_string(id);
  return out.empty() ? "-" : out;
}

}  // namespace

std::string role_for_command(const std::string& command) {
  static const std::map<std::string, std::string> roles = {
      {"cluster", "admin"},   {"devices", "worker"}, {"sessions", "master"},
      {"graphs", "master"},   {"steps", "master"},   {"pending", "worker"},
      {"vars", "worker"},     {"var", "worker"},     {"trace", "worker"},
      {"abort", "master"},    {"summaries", "master"}, {"logdir", "master"},
      {"tasks", "admin"},
  };
  auto it = roles.find(command);
  return it == roles.end() ? std::string{} : it->second;
}

status validate_query(const admin_query& q) {
  if (q.words.empty()) return errors::invalid_argument("empty command");
  const std::string& c = q.words[0];
  if (role_for_command(c).empty())
    return errors::invalid_argument("unknown command '", c, "' (try help)");
  if (c == "var") return expect_words(q, 2, "var NAME");
  if (c == "abort") {
    CAFLOW_RETURN_IF_ERROR(expect_words(q, 2, "abort STEP"));
    char* end = nullptr;
    std::strtoll(q.words[1].c_str(), &end, 10);
    if (q.words[1].empty() || *end != '\0')
      return errors::invalid_argument("abort takes a step id (an integer), not '", q.words[1],
                                      "'");
    return {};
  }
  if (c == "trace") {
    const bool on_off = q.words.size() >= 2 && (q.words[1] == "on" || q.words[1] == "off");
    if ((on_off && q.words.size() <= 3) || (q.words.size() == 2 && q.words[1] == "collect"))
      return {};
    return errors::invalid_argument("usage: trace on|off [TASK] | trace save FILE");
  }
  return expect_words(q, 1, c.c_str());
}

status_or<admin_reply> answer_worker_query(const worker_view& w, const admin_query& q) {
  if (q.words.empty()) return errors::invalid_argument("empty command");
  const std::string& c = q.words[0];
  if (c == "devices") return devices(w);
  if (c == "pending") return pending(w);
  if (c == "vars") return vars(w);
  if (c == "var") return var(w, q);
  if (c == "trace") return trace(w, q);
  return errors::invalid_argument("the worker does not answer '", c, "'");
}

status_or<admin_reply> answer_master_query(const std::string& task, const master_snapshot& m,
                                           const admin_query& q) {
  if (q.words.empty()) return errors::invalid_argument("empty command");
  const std::string& c = q.words[0];
  admin_reply r;
  if (c == "sessions") {
    r.table.columns = {"task", "session", "graph nodes", "signatures", "steps", "running"};
    for (const auto& s : m.sessions)
      r.table.rows.push_back({task, s.handle, std::to_string(s.graph_nodes),
                              std::to_string(s.signatures), std::to_string(s.latency.count),
                              running_steps(s)});
  } else if (c == "graphs") {
    r.table.columns = {"task", "session", "signature", "partition on", "device", "nodes"};
    for (const auto& s : m.sessions)
      for (const auto& p : s.partitions)
        r.table.rows.push_back({task, s.handle, std::to_string(p.signature), p.task, p.device,
                                std::to_string(p.nodes)});
  } else if (c == "steps") {
    r.table.columns = {"task", "session", "steps", "errors", "p50", "p99", "rate", "running"};
    for (const auto& s : m.sessions) {
      const latency_summary& l = s.latency;
      const bool some = l.window > 0;
      r.table.rows.push_back({task, s.handle, std::to_string(l.count), std::to_string(l.errors),
                              some ? format_micros(l.p50_us) : "-",
                              some ? format_micros(l.p99_us) : "-",
                              l.steps_per_s > 0 ? fixed(l.steps_per_s, 1) + "/s" : "-",
                              running_steps(s)});
    }
  } else if (c == "summaries") {
    r.table.columns = {"task", "session", "tag", "step", "value", "written"};
    const int64_t now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    for (const auto& s : m.sessions)
      for (const auto& v : s.summaries.scalars) {
        char value[32];
        std::snprintf(value, sizeof value, "%.6g", v.value);
        r.table.rows.push_back({task, s.handle, v.tag, std::to_string(v.step), value,
                                format_seconds(std::max<int64_t>(now_us - v.wall_us, 0) / 1e6) +
                                    " ago"});
      }
    if (r.table.rows.empty())
      r.table.notes.push_back(task + ": no session has reported summaries (caflow-train "
                              "--logdir DIR writes and reports them)");
  } else if (c == "logdir") {
    r.table.columns = {"task", "session", "logdir", "event file"};
    for (const auto& s : m.sessions)
      if (!s.summaries.logdir.empty())
        r.table.rows.push_back({task, s.handle, s.summaries.logdir, s.summaries.file});
  } else {
    return errors::invalid_argument("the master does not answer '", c, "'");
  }
  return r;
}

void render_partitioned_variables(const admin_query& q, std::vector<variable_shard> shards,
                                  admin_table& table) {
  if (shards.empty() || q.words.empty()) return;
  const bool with_values = q.words[0] == "var";
  if (table.columns.empty())
    table.columns = {"task", "variable", "dtype", "shape", with_values ? "values" : "l2 norm",
                     "partition"};
  std::map<std::string, std::vector<variable_shard>> by_name;
  for (auto& s : shards) by_name[s.full_name].push_back(std::move(s));
  for (auto& [name, parts] : by_name) {
    std::sort(parts.begin(), parts.end(),
              [](const auto& a, const auto& b) { return a.offset < b.offset; });
    std::vector<std::string> tasks;
    int64_t rows = 0, bytes = 0, initialized = 0, total = 0;
    double sum = 0;
    std::vector<std::string> shown;
    for (const auto& s : parts) {
      if (std::find(tasks.begin(), tasks.end(), s.task) == tasks.end()) tasks.push_back(s.task);
      rows += s.rows;
      bytes += s.bytes;
      initialized += s.initialized ? 1 : 0;
      sum += s.sum_squares;
      total += s.num_elements;
      for (const auto& v : s.values)
        if (static_cast<int64_t>(shown.size()) < max_shown_values) shown.push_back(v);
    }
    const auto n = static_cast<int64_t>(parts.size());
    std::string value = "uninitialized";
    if (initialized == n) value = with_values ? values_text(shown, total) : fixed(std::sqrt(sum), 6);
    else if (initialized > 0) value = "partly initialized";
    const variable_shard& first = parts.front();
    table.rows.push_back({tasks.size() == 1 ? tasks.front() : std::to_string(tasks.size()) + " tasks",
                          name, first.dtype, first.full_shape, value,
                          std::to_string(n) + (n == 1 ? " shard, " : " shards, ") +
                              format_bytes(bytes)});
    for (const auto& s : parts)
      table.rows.push_back(
          {s.task, s.name, s.dtype, s.shape,
           with_values ? "" : (s.initialized ? fixed(std::sqrt(s.sum_squares), 6) : "uninitialized"),
           rows_text(s.offset, s.rows) + ", " + format_bytes(s.bytes) + ", " +
               short_device(s.device)});
    if (rows != first.full_rows)
      table.notes.push_back(errors::concat("'", name, "': the shards found hold ", rows, " of its ",
                                           first.full_rows, " rows (a task did not answer?)"));
  }
}

std::string format_bytes(int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double x = static_cast<double>(bytes);
  int u = 0;
  while (std::fabs(x) >= 1024 && u < 4) {
    x /= 1024;
    ++u;
  }
  return u == 0 ? std::to_string(bytes) + " B" : fixed(x, 1) + " " + units[u];
}

std::string format_micros(double us) {
  if (us < 1000) return fixed(us, 0) + " us";
  if (us < 1e6) return fixed(us / 1000, 2) + " ms";
  return format_seconds(us / 1e6);
}

std::string format_seconds(double s) {
  if (s < 60) return fixed(s, 1) + " s";
  const auto total = static_cast<int64_t>(s);
  char buf[64];
  if (total < 3600)
    std::snprintf(buf, sizeof buf, "%lldm%02llds", static_cast<long long>(total / 60),
                  static_cast<long long>(total % 60));
  else
    std::snprintf(buf, sizeof buf, "%lldh%02lldm", static_cast<long long>(total / 3600),
                  static_cast<long long>(total / 60 % 60));
  return buf;
}

}  // namespace caflow
