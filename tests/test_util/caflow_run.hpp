#pragma once
// caflow-run started as a process, for tests compiled with CAFLOW_RUN_BINARY
// (tests/CMakeLists.txt).
#include <sys/wait.h>

#include <string>
#include <vector>

#include "test_util/process.hpp"

namespace caflow::testing {

struct caflow_run_result {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

inline caflow_run_result caflow_run(std::vector<std::string> args) {
  using namespace std::chrono_literals;
  args.insert(args.begin(), CAFLOW_RUN_BINARY);
  child_process p(args);
  const int raw = p.wait_exit(120s);
  caflow_run_result r;
  r.exit_code = raw >= 0 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.output = p.output();
  return r;
}

}  // namespace caflow::testing
