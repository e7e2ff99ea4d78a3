// caflow-console: a live view into a running cluster, from any one of its tasks.
//
//   caflow-console --connect 127.0.0.1:2222                      (interactive: line editing,
//                                                                  history, tab completion)
//   caflow-console --connect 127.0.0.1:2222 --exec "cluster; steps; trace save t.json"
//
// --exec runs the commands in order and exits 0, or 1 at the first error (printed on stderr
// with the command that failed). `help` lists the commands.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <editline/readline.h>

#include "graph/core/log.hpp"
#include "admin_client.hpp"
#include "commands.hpp"

using namespace caflow;
using namespace caflow::console;

namespace {

struct options {
  std::string connect;
  std::string exec;
  bool have_exec = false;
  std::string log_level;
  std::string history;  // empty: none
  int connect_timeout_ms = 10000;
  transport_security security;
  bool help = false;
};

constexpr const char* usage_text =
    "usage: caflow-console --connect HOST:PORT [--exec \"CMD; CMD\"]\n"
    "       [--log-level error|warn|info|debug] [--history FILE]\n"
    "       [--connect-timeout-ms MS (default 10000)]\n"
    "       [--tls-cert PEM --tls-key PEM --tls-ca PEM] [--cluster-id ID (default caflow)]\n"
    "Opens a live view into the cluster whose task serves at HOST:PORT; 'help' inside lists\n"
    "the commands. --exec runs the commands given and exits.\n";

int usage(const std::string& why) {
  std::fprintf(stderr, "caflow-console: %s\n%s", why.c_str(), usage_text);
  return 2;
}

status_or<options> parse(int argc, char** argv) {
  options o;
  if (const char* home = std::getenv("HOME")) o.history = std::string(home) + "/.caflow_console_history";
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      o.help = true;
      return o;
    }
    if (i + 1 >= argc) return errors::invalid_argument("flag ", flag, " needs a value");
    const std::string value = argv[++i];
    if (flag == "--connect") {
      o.connect = value;
    } else if (flag == "--exec") {
      o.exec = value;
      o.have_exec = true;
    } else if (flag == "--log-level") {
      o.log_level = value;
    } else if (flag == "--history") {
      o.history = value;
    } else if (flag == "--tls-cert") {
      o.security.cert = value;
    } else if (flag == "--tls-key") {
      o.security.key = value;
    } else if (flag == "--tls-ca") {
      o.security.ca = value;
    } else if (flag == "--cluster-id") {
      o.security.cluster_id = value;
    } else if (flag == "--connect-timeout-ms") {
      char* end = nullptr;
      const long ms = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || ms <= 0 || ms > 3600000)
        return errors::invalid_argument("--connect-timeout-ms takes milliseconds, got '", value,
                                        "'");
      o.connect_timeout_ms = static_cast<int>(ms);
    } else {
      return errors::invalid_argument("unknown flag '", flag, "'");
    }
  }
  if (o.connect.empty()) return errors::invalid_argument("--connect HOST:PORT is required");
  return o;
}

// --- tab completion (libedit's readline interface calls back through plain functions) ---

admin_client* completion_client = nullptr;
std::vector<std::string> candidates;
size_t candidate_index = 0;

char* next_candidate(const char* text, int state) {
  if (state == 0) candidate_index = 0;
  const size_t n = std::strlen(text);
  while (candidate_index < candidates.size()) {
    const std::string& c = candidates[candidate_index++];
    if (c.compare(0, n, text) == 0) return strdup(c.c_str());
  }
  return nullptr;
}

char** complete(const char* text, int start, int) {
  // The words of the current command (after the last ';') before the one being completed.
  std::string before(rl_line_buffer, static_cast<size_t>(start));
  if (auto semi = before.rfind(';'); semi != std::string::npos) before = before.substr(semi + 1);
  const auto words = split_words(before);
  candidates.clear();
  if (words.empty()) {
    for (const auto& c : commands()) candidates.emplace_back(c.name);
  } else if (words[0] == "trace" && words.size() == 1) {
    candidates = {"on", "off", "save"};
  } else if (words[0] == "var" && words.size() == 1 && completion_client) {
    auto reply = completion_client->ask({"vars"}, std::chrono::seconds(3));
    if (reply.ok())
      for (const auto& row : reply->table.rows)
        if (row.size() > 1) candidates.push_back(row[1]);
  } else if (words[0] == "trace" && words.size() == 2 && words[1] == "save") {
    return nullptr;  // a file name: libedit's own filename completion
  }
  rl_attempted_completion_over = 1;
  return rl_completion_matches(text, next_candidate);
}

int interactive(admin_client& client, const options& o) {
  completion_client = &client;
  rl_readline_name = "caflow-console";
  rl_attempted_completion_function = complete;
  using_history();
  stifle_history(1000);
  if (!o.history.empty()) read_history(o.history.c_str());
  std::printf("connected to %s; 'help' lists the commands\n", client.address().c_str());
  bool quit = false;
  while (!quit) {
    char* raw = readline("caflow> ");
    if (raw == nullptr) break;  // end of input
    const std::string line = raw;
    std::free(raw);
    if (split_words(line).empty()) continue;
    add_history(line.c_str());
    for (const std::string& cmd : split_commands(line)) {
      outcome out = run_command(client, cmd);
      std::fputs(out.output.c_str(), stdout);
      if (!out.result.ok()) std::printf("error: %s: %s\n", cmd.c_str(), out.result.to_string().c_str());
      std::fflush(stdout);
      if (out.quit) {
        quit = true;
        break;
      }
    }
  }
  if (!o.history.empty()) write_history(o.history.c_str());
  return 0;
}

int run_script(admin_client& client, const std::string& script) {
  for (const std::string& cmd : split_commands(script)) {
    outcome out = run_command(client, cmd);
    std::fputs(out.output.c_str(), stdout);
    std::fflush(stdout);
    if (!out.result.ok()) {
      std::fprintf(stderr, "caflow-console: %s: %s\n", cmd.c_str(), out.result.to_string().c_str());
      return 1;
    }
    if (out.quit) break;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  auto opts = parse(argc, argv);
  if (!opts.ok()) return usage(opts.get_status().message());
  if (opts->help) {
    std::printf("%s", usage_text);
    return 0;
  }
  if (status st = init_logging(opts->log_level); !st.ok()) return usage(st.message());
  // The TLS files are parsed before connecting: a bad one is one line naming the flag and file.
  if (status st = validate(opts->security); !st.ok()) {
    std::fprintf(stderr, "caflow-console: %s\n", st.message().c_str());
    return 1;
  }
  write_log(log_level::info, "console", "connecting to ", opts->connect);
  auto client = admin_client::connect(opts->connect,
                                      std::chrono::milliseconds(opts->connect_timeout_ms),
                                      opts->security);
  if (!client.ok()) {
    std::fprintf(stderr, "caflow-console: %s\n", client.get_status().to_string().c_str());
    return 1;
  }
  write_log(log_level::info, "console", "connected to the admin of ", opts->connect);
  return opts->have_exec ? run_script(**client, opts->exec) : interactive(**client, *opts);
}
