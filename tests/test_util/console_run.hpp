#pragma once
// caflow-console run once with --exec against a task, and the check its tables are read with.
// For tests compiled with CAFLOW_CONSOLE_BINARY (tests/CMakeLists.txt).
#include <sys/wait.h>

#include <regex>
#include <string>
#include <vector>

#include "test_util/process.hpp"

namespace caflow::testing {

struct console_run {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

inline console_run run_console(const std::string& address, const std::string& commands) {
  using namespace std::chrono_literals;
  child_process p({CAFLOW_CONSOLE_BINARY, "--connect", address, "--exec", commands, "--history", ""});
  const int raw = p.wait_exit(60s);
  console_run r;
  r.exit_code = raw >= 0 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.output = p.output();
  return r;
}

// A line of `text` whose cells, split by whitespace, match `cells` (regexes) from its start.
inline bool has_row(const std::string& text, const std::vector<std::string>& cells) {
  std::string pattern = "(^|\\n)";
  for (size_t i = 0; i < cells.size(); ++i) pattern += (i ? "\\s+" : "") + cells[i];
  return std::regex_search(text, std::regex(pattern));
}

}  // namespace caflow::testing
