#include "net/cluster_spec.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace caflow {
namespace {

using nlohmann::json;

bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return is_lower(c) || is_digit(c) || (c >= 'A' && c <= 'Z'); }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

std::string_view trim(std::string_view s) {
  const char* space = " \t\r\n";
  std::size_t begin = s.find_first_not_of(space);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(space) - begin + 1);
}

status check_job_name(std::string_view job) {
  if (job.empty()) return errors::invalid_argument("empty job name");
  bool ok = is_lower(job[0]);
  for (char c : job) ok = ok && (is_lower(c) || is_digit(c) || c == '_');
  if (!ok) {
    return errors::invalid_argument("invalid job name '", job, "' (expected [a-z][a-z0-9_]*)");
  }
  return ok_status();
}

std::string job_list(const std::vector<std::string>& jobs) {
  std::string out;
  for (const std::string& job : jobs) out += (out.empty() ? "" : ", ") + job;
  return out;
}

// nlohmann keeps the last of two equal keys silently; a cluster listing a job twice is far more
// likely a mistake than an override, so the parse callback turns it into an error.
status_or<json> parse_json(std::string_view text) {
  std::vector<std::set<std::string>> open_objects;
  std::string duplicate;
  auto track_keys = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) {
      open_objects.emplace_back();
    } else if (event == json::parse_event_t::object_end) {
      open_objects.pop_back();
    } else if (event == json::parse_event_t::key && !open_objects.empty() && duplicate.empty()) {
      const auto& key = parsed.get_ref<const std::string&>();
      if (!open_objects.back().insert(key).second) duplicate = key;
    }
    return true;
  };
  json value;
  try {
    value = json::parse(text.begin(), text.end(), track_keys);
  } catch (const json::exception& e) {
    // Drop nlohmann's "[json.exception.parse_error.101] " tag; keep line, column and reason.
    std::string_view what = e.what();
    std::size_t tag_end = what.find("] ");
    if (tag_end != std::string_view::npos) what.remove_prefix(tag_end + 2);
    return errors::invalid_argument("not valid JSON: ", what);
  }
  if (!duplicate.empty()) return errors::invalid_argument("key '", duplicate, "' appears twice");
  return value;
}

// {"job": ["host:port", ...]} -> map, checking JSON types only; from_jobs checks the values.
status_or<std::map<std::string, std::vector<std::string>>> jobs_from_json(const json& j) {
  if (!j.is_object()) {
    return errors::invalid_argument(
        "expected a JSON object mapping job names to arrays of \"host:port\", got ", j.type_name());
  }
  std::map<std::string, std::vector<std::string>> jobs;
  for (const auto& [job, tasks] : j.items()) {
    if (!tasks.is_array()) {
      return errors::invalid_argument("job '", job, "': expected an array of \"host:port\", got ",
                                      tasks.type_name());
    }
    auto& addresses = jobs[job];
    for (const json& address : tasks) {
      if (!address.is_string()) {
        return errors::invalid_argument("job '", job, "' task ", addresses.size(),
                                        ": expected a \"host:port\" string, got ",
                                        address.type_name());
      }
      addresses.push_back(address.get<std::string>());
    }
  }
  return jobs;
}

// "ps=h:1;worker=h:2,h:3" -> map; from_jobs checks names and addresses.
status_or<std::map<std::string, std::vector<std::string>>> jobs_from_compact(
    std::string_view text) {
  std::map<std::string, std::vector<std::string>> jobs;
  while (true) {
    std::size_t semicolon = text.find(';');
    std::string_view entry = trim(text.substr(0, semicolon));
    if (entry.empty())
      return errors::invalid_argument("empty entry (two ';' in a row, or a trailing one)");
    std::size_t equals = entry.find('=');
    if (equals == std::string_view::npos) {
      return errors::invalid_argument("entry '", entry, "' is not job=host:port[,host:port...]");
    }
    std::string job(trim(entry.substr(0, equals)));
    if (jobs.count(job)) return errors::invalid_argument("job '", job, "' appears twice");
    auto& addresses = jobs[job];
    std::string_view list = trim(entry.substr(equals + 1));
    while (!list.empty()) {
      std::size_t comma = list.find(',');
      addresses.emplace_back(trim(list.substr(0, comma)));
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 1);
      // A trailing ',' leaves an empty address, which from_jobs reports.
      if (trim(list).empty()) addresses.emplace_back();
    }
    if (semicolon == std::string_view::npos) break;
    text.remove_prefix(semicolon + 1);
  }
  return jobs;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

bool is_loopback_host(std::string_view host) {
  return host.starts_with("127.") || host == "localhost" || host == "::1" || host == "[::1]";
}

status_or<host_port> split_host_port(std::string_view address) {
  auto bad = [address](auto&&... parts) {
    return errors::invalid_argument("address '", address, "' ", parts...);
  };
  if (address.empty()) return errors::invalid_argument("empty address (expected host:port)");
  std::string_view host;
  std::string_view rest;  // ":port", or what follows the host instead
  if (address[0] == '[') {
    std::size_t close = address.find(']');
    if (close == std::string_view::npos) return bad("has an unterminated '['");
    host = address.substr(1, close - 1);
    rest = address.substr(close + 1);
    for (char c : host) {
      if (!is_hex(c) && c != ':' && c != '.') {
        return bad("has an invalid IPv6 host '", host, "'");
      }
    }
  } else {
    std::size_t colon = address.rfind(':');
    host = address.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view() : address.substr(colon);
    if (host.find(':') != std::string_view::npos) {
      return bad("has more than one ':' (write an IPv6 host in brackets: [::1]:2222)");
    }
    for (char c : host) {
      if (!is_alnum(c) && c != '.' && c != '-' && c != '_') {
        return bad("has an invalid host '", host, "'");
      }
    }
  }
  if (rest.empty() || rest == ":") return bad("has no port (expected host:port)");
  if (rest[0] != ':') return bad("has '", rest, "' after the host (expected :port)");
  if (host.empty()) return bad("has an empty host");
  std::string_view port_text = rest.substr(1);
  bool digits = true;
  for (char c : port_text) digits = digits && is_digit(c);
  if (!digits) return bad("has a port that is not a number: '", port_text, "'");
  unsigned long port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || port == 0 || port > 65535) {
    return bad("has port ", port_text, ", outside 1..65535");
  }
  return host_port{std::string(host), static_cast<uint16_t>(port)};
}

status_or<cluster_spec> cluster_spec::from_jobs(
    std::map<std::string, std::vector<std::string>> jobs) {
  if (jobs.empty()) return errors::invalid_argument("the cluster has no jobs");
  // "host:port" with the host lower-cased (DNS names are case-insensitive) -> first user.
  std::map<std::string, std::string> users;
  for (const auto& [job, addresses] : jobs) {
    CAFLOW_RETURN_IF_ERROR(check_job_name(job));
    if (addresses.empty()) return errors::invalid_argument("job '", job, "' has no tasks");
    for (std::size_t task = 0; task < addresses.size(); ++task) {
      std::string where = errors::concat("/job:", job, "/task:", task);
      auto hp = split_host_port(addresses[task]);
      if (!hp.ok()) return hp.get_status().with_context(where);
      auto [it, fresh] = users.emplace(errors::concat(lower(hp->host), ":", hp->port), where);
      if (!fresh) {
        return errors::invalid_argument("address '", addresses[task], "' is used by both ",
                                        it->second, " and ", where);
      }
    }
  }
  return cluster_spec({std::make_move_iterator(jobs.begin()), std::make_move_iterator(jobs.end())});
}

status_or<cluster_spec> cluster_spec::from_json(std::string_view text) {
  auto parsed = parse_json(text);
  if (!parsed.ok()) return parsed.get_status().with_context("invalid cluster spec");
  auto jobs = jobs_from_json(*parsed);
  if (!jobs.ok()) return jobs.get_status().with_context("invalid cluster spec");
  auto spec = from_jobs(std::move(jobs).value());
  if (!spec.ok()) return spec.get_status().with_context("invalid cluster spec");
  return spec;
}

status_or<cluster_spec> cluster_spec::from_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return errors::not_found("cannot open cluster spec file '", path, "': ", std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return errors::data_loss("cannot read cluster spec file '", path, "'");
  auto spec = from_json(text.str());
  if (!spec.ok()) return spec.get_status().with_context("file '" + path + "'");
  return spec;
}

status_or<cluster_spec> cluster_spec::from_flag(std::string_view flag) {
  std::string_view text = trim(flag);
  if (text.empty()) return errors::invalid_argument("invalid cluster spec: the flag is empty");
  if (text[0] == '{') return from_json(text);
  auto jobs = jobs_from_compact(text);
  if (!jobs.ok()) return jobs.get_status().with_context("invalid cluster spec");
  auto spec = from_jobs(std::move(jobs).value());
  if (!spec.ok()) return spec.get_status().with_context("invalid cluster spec");
  return spec;
}

std::vector<std::string> cluster_spec::jobs() const {
  std::vector<std::string> out;
  for (const auto& [job, addresses] : jobs_) out.push_back(job);
  return out;
}

bool cluster_spec::has_job(std::string_view job) const { return jobs_.find(job) != jobs_.end(); }

int cluster_spec::num_tasks(std::string_view job) const {
  auto it = jobs_.find(job);
  return it == jobs_.end() ? 0 : static_cast<int>(it->second.size());
}

status_or<std::string> cluster_spec::task_address(std::string_view job, int task) const {
  auto it = jobs_.find(job);
  if (it == jobs_.end()) {
    return errors::not_found("job '", job, "' is not in the cluster (jobs: ", job_list(jobs()),
                             ")");
  }
  if (task < 0 || static_cast<std::size_t>(task) >= it->second.size()) {
    return errors::not_found("task ", task, " of job '", job, "' does not exist: the job has ",
                             it->second.size(), " task(s)");
  }
  return it->second[static_cast<std::size_t>(task)];
}

std::vector<cluster_spec::task_entry> cluster_spec::tasks() const {
  std::vector<task_entry> out;
  for (const auto& [job, addresses] : jobs_) {
    for (std::size_t i = 0; i < addresses.size(); ++i) {
      out.push_back({job, static_cast<int>(i), addresses[i]});
    }
  }
  return out;
}

std::string cluster_spec::to_json() const {
  json out = json::object();
  for (const auto& [job, addresses] : jobs_) out[job] = addresses;
  return out.dump();
}

std::string cluster_spec::to_flag() const {
  std::string out;
  for (const auto& [job, addresses] : jobs_) {
    if (!out.empty()) out += ';';
    out += job + '=';
    for (std::size_t i = 0; i < addresses.size(); ++i) out += (i ? "," : "") + addresses[i];
  }
  return out;
}

status cluster_spec::validate_device(const device_spec& spec) const {
  std::string name = to_string(spec);
  if (spec.task && *spec.task < 0) {
    return errors::invalid_argument("device '", name, "': task ", *spec.task, " is negative");
  }
  if (spec.replica && *spec.replica != 0) {
    return errors::invalid_argument("device '", name, "': replica ", *spec.replica,
                                    " does not exist (every task of a cluster is replica 0)");
  }
  if (spec.job) {
    auto it = jobs_.find(*spec.job);
    if (it == jobs_.end()) {
      return errors::invalid_argument("device '", name, "': job '", *spec.job,
                                      "' is not in the cluster (jobs: ", job_list(jobs()), ")");
    }
    if (spec.task && static_cast<std::size_t>(*spec.task) >= it->second.size()) {
      return errors::invalid_argument("device '", name, "': job '", *spec.job, "' has ",
                                      it->second.size(), " task(s)");
    }
  } else if (spec.task) {
    int most = 0;
    for (const auto& [job, addresses] : jobs_) most = std::max(most, int(addresses.size()));
    if (*spec.task >= most) {
      return errors::invalid_argument("device '", name, "': no job of the cluster has task ",
                                      *spec.task, " (the largest job has ", most, " task(s))");
    }
  }
  return ok_status();
}

std::string task_config::task_name() const {
  return errors::concat("/job:", job, "/replica:0/task:", task);
}

status_or<task_config> task_config::from_tf_config(std::string_view text) {
  auto bad = [](auto&&... parts) {
    return errors::invalid_argument("invalid TF_CONFIG: ", parts...);
  };
  auto parsed = parse_json(text);
  if (!parsed.ok()) return parsed.get_status().with_context("invalid TF_CONFIG");
  const json& config = *parsed;
  if (!config.is_object()) return bad("expected a JSON object, got ", config.type_name());

  auto cluster_it = config.find("cluster");
  if (cluster_it == config.end()) return bad("no \"cluster\" key");
  auto jobs = jobs_from_json(*cluster_it);
  if (!jobs.ok()) return jobs.get_status().with_context("invalid TF_CONFIG: \"cluster\"");
  auto cluster = cluster_spec::from_jobs(std::move(jobs).value());
  if (!cluster.ok()) return cluster.get_status().with_context("invalid TF_CONFIG: \"cluster\"");

  auto task_it = config.find("task");
  if (task_it == config.end()) return bad("no \"task\" key");
  if (!task_it->is_object()) return bad("\"task\" must be an object, got ", task_it->type_name());
  auto type_it = task_it->find("type");
  if (type_it == task_it->end()) return bad("\"task\" has no \"type\"");
  if (!type_it->is_string()) {
    return bad("\"task\".\"type\" must be a string, got ", type_it->type_name());
  }
  std::string job = type_it->get<std::string>();
  // Kept as written for the error message: a huge unsigned index must not print wrapped.
  std::string index_text = "0";
  long long index = 0;
  auto index_it = task_it->find("index");
  if (index_it != task_it->end()) {
    if (!index_it->is_number_integer()) {
      return bad("\"task\".\"index\" must be an integer, got ", index_it->type_name());
    }
    index_text = index_it->dump();
    index = index_it->is_number_unsigned()
                ? static_cast<long long>(std::min<uint64_t>(index_it->get<uint64_t>(), INT_MAX))
                : index_it->get<long long>();
  }
  if (!cluster->has_job(job)) {
    return bad("task type '", job,
               "' is not a job of the cluster (jobs: ", job_list(cluster->jobs()), ")");
  }
  int num_tasks = cluster->num_tasks(job);
  if (index < 0 || index >= num_tasks) {
    return bad("task index ", index_text, " is out of range: job '", job, "' has ", num_tasks,
               " task(s)");
  }
  return task_config{std::move(cluster).value(), std::move(job), static_cast<int>(index)};
}

status_or<task_config> task_config::from_tf_config_env() {
  const char* text = std::getenv("TF_CONFIG");
  if (text == nullptr || *text == '\0') {
    return errors::not_found("the TF_CONFIG environment variable is not set");
  }
  return from_tf_config(text);
}

}  // namespace caflow
