#include "trace_file.hpp"

#include <algorithm>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

namespace caflow::console {

std::string chrome_trace_json(const std::vector<trace_event>& events) {
  using nlohmann::json;
  // Ids in order of first appearance sorted by name, so the same cluster gets the same rows.
  std::map<std::string, int> pids;
  std::map<std::pair<std::string, std::string>, int> tids;
  for (const trace_event& e : events) {
    pids.emplace(e.task, 0);
    tids.emplace(std::pair{e.task, e.device}, 0);
  }
  int next = 1;
  for (auto& [task, pid] : pids) pid = next++;
  std::map<std::string, int> next_tid;
  for (auto& [key, tid] : tids) tid = ++next_tid[key.first];

  // Times relative to the earliest event keep the numbers small; every task shares the origin.
  int64_t origin = 0;
  if (!events.empty())
    origin = std::min_element(events.begin(), events.end(), [](const auto& a, const auto& b) {
               return a.start_us < b.start_us;
             })->start_us;

  json out = json::array();
  for (const auto& [task, pid] : pids)
    out.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"tid", 0},
                   {"args", {{"name", task}}}});
  for (const auto& [key, tid] : tids)
    out.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pids[key.first]}, {"tid", tid},
                   {"args", {{"name", key.second}}}});
  for (const trace_event& e : events) {
    // Step ids are random 64-bit numbers: as JSON numbers, JavaScript viewers would round
    // those above 2^53, so they are written as strings.
    json args = {{"op", e.op}, {"step", std::to_string(e.step_id)}};
    if (e.bytes >= 0) args["bytes"] = e.bytes;
    if (!e.peer.empty()) args["peer"] = e.peer;
    if (!e.key.empty()) args["key"] = e.key;
    out.push_back({{"name", e.node},
                   {"cat", e.op},
                   {"ph", "X"},
                   {"ts", e.start_us - origin},
                   {"dur", std::max<int64_t>(e.dur_us, 0)},
                   {"pid", pids[e.task]},
                   {"tid", tids[{e.task, e.device}]},
                   {"args", std::move(args)}});
  }
  return json{{"traceEvents", std::move(out)}, {"displayTimeUnit", "ms"}}.dump();
}

status write_chrome_trace(const std::vector<trace_event>& events, const std::string& path) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return errors::unavailable("cannot open '", path, "' for writing");
  f << chrome_trace_json(events) << '\n';
  f.close();
  if (!f) return errors::unavailable("cannot write '", path, "'");
  return {};
}

}  // namespace caflow::console
