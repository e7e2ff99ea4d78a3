#include "commands.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "trace_file.hpp"

namespace caflow::console {
namespace {

using namespace std::chrono_literals;

// Long enough for a peer to be found again (resolver) and asked (its own timeout).
constexpr auto question_timeout = 15s;
// Gathering a trace moves every task's events.
constexpr auto trace_timeout = 60s;

std::string help_text() {
  std::ostringstream os;
  size_t width = 0;
  for (const auto& c : commands())
    width = std::max(width, std::string(c.name).size() + 1 + std::string(c.args).size());
  for (const auto& c : commands()) {
    std::string usage = std::string(c.name) + (*c.args ? std::string(" ") + c.args : "");
    os << "  " << usage << std::string(width - usage.size() + 2, ' ') << c.help << '\n';
  }
  os << "Several commands may go on one line, separated by ';'.\n";
  return os.str();
}

outcome save_trace(admin_client& client, const std::vector<std::string>& words) {
  outcome o;
  if (words.size() != 3) {
    o.result = errors::invalid_argument("usage: trace save FILE");
    return o;
  }
  auto reply = client.ask({"trace", "collect"}, trace_timeout);
  if (!reply.ok()) {
    o.result = reply.get_status();
    return o;
  }
  o.result = write_chrome_trace(reply->events, words[2]);
  if (!o.result.ok()) return o;
  std::set<std::string> tasks;
  std::set<std::pair<std::string, std::string>> devices;
  for (const auto& e : reply->events) {
    tasks.insert(e.task);
    devices.emplace(e.task, e.device);
  }
  std::ostringstream os;
  os << "wrote " << reply->events.size() << " events from " << tasks.size() << " tasks ("
     << devices.size() << " devices) to " << words[2] << '\n';
  for (const auto& note : reply->table.notes) os << "note: " << note << '\n';
  o.output = os.str();
  return o;
}

}  // namespace

const std::vector<command_info>& commands() {
  static const std::vector<command_info> all = {
      {"cluster", "", "every task: address, alive or lost, uptime"},
      {"tasks", "", "every task and how this console reaches it (through the task it asked, or "
                    "by itself: a task outside that task's device filters)"},
      {"devices", "", "memory in use and peak per device"},
      {"sessions", "", "sessions on every master"},
      {"graphs", "", "cached partitions per session: task, device, nodes"},
      {"steps", "", "recent step latency (p50, p99) and rate per session"},
      {"pending", "", "Recvs waiting now, by task and age"},
      {"vars", "", "variables with dtype, shape and L2 norm"},
      {"var", "NAME", "a variable's values (truncated)"},
      {"trace", "on|off [TASK] | save FILE", "record executed nodes; save as Chrome trace JSON"},
      {"abort", "STEP", "abort a running step"},
      {"summaries", "", "the last value of each summary a session's client wrote"},
      {"logdir", "", "where each session's client writes its TensorBoard events"},
      {"help", "", "this list"},
      {"quit", "", "leave the console"},
  };
  return all;
}

std::vector<std::string> split_words(std::string_view line) {
  std::vector<std::string> words;
  std::istringstream is{std::string(line)};
  for (std::string w; is >> w;) words.push_back(w);
  return words;
}

std::vector<std::string> split_commands(std::string_view line) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= line.size()) {
    size_t end = line.find(';', start);
    if (end == std::string_view::npos) end = line.size();
    auto piece = line.substr(start, end - start);
    if (!split_words(piece).empty()) {
      const size_t b = piece.find_first_not_of(" \t");
      const size_t e = piece.find_last_not_of(" \t");
      out.emplace_back(piece.substr(b, e - b + 1));
    }
    start = end + 1;
  }
  return out;
}

std::string format_table(const admin_table& t) {
  std::ostringstream os;
  std::vector<size_t> width(t.columns.size());
  for (size_t c = 0; c < t.columns.size(); ++c) width[c] = t.columns[c].size();
  for (const auto& row : t.rows)
    for (size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], row[c].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string& cell = c < cells.size() ? cells[c] : std::string();
      s += cell;
      if (c + 1 < width.size()) s += std::string(width[c] - cell.size() + 2, ' ');
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    os << s << '\n';
  };
  if (!t.columns.empty()) {
    line(t.columns);
    std::vector<std::string> rule;
    for (size_t w : width) rule.emplace_back(w, '-');
    line(rule);
  }
  for (const auto& row : t.rows) line(row);
  if (t.rows.empty()) os << "(none)\n";
  for (const auto& note : t.notes) os << "note: " << note << '\n';
  return os.str();
}

outcome run_command(admin_client& client, const std::string& line) {
  outcome o;
  const auto words = split_words(line);
  if (words.empty()) return o;
  if (words[0] == "help") {
    o.output = help_text();
    return o;
  }
  if (words[0] == "quit" || words[0] == "exit") {
    o.quit = true;
    return o;
  }
  if (words[0] == "trace" && words.size() >= 2 && words[1] == "save") return save_trace(client, words);
  auto reply = client.ask(words, question_timeout);
  if (!reply.ok()) {
    o.result = reply.get_status();
    return o;
  }
  o.output = format_table(reply->table);
  return o;
}

}  // namespace caflow::console
