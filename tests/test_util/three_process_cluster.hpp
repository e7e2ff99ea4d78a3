#pragma once
// Three caflow-server processes on 127.0.0.1 (one ps, two workers, ports picked free), for tests
// whose graphs span processes; the servers are reaped when the struct goes.
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "actors/session.hpp"
#include "test_util/process.hpp"

namespace caflow::testing {

using namespace std::chrono_literals;

struct three_process_cluster {
  std::vector<int> ports = caflow::testing::free_ports(3);
  std::string spec = "ps=127.0.0.1:" + std::to_string(ports[0]) + ";worker=127.0.0.1:" +
                     std::to_string(ports[1]) + ",127.0.0.1:" + std::to_string(ports[2]);
  std::unique_ptr<child_process> ps0 = start("ps", 0);
  std::unique_ptr<child_process> worker0 = start("worker", 0);
  std::unique_ptr<child_process> worker1 = start("worker", 1);

  std::unique_ptr<child_process> start(const std::string& job, int task) {
    return std::make_unique<child_process>(std::vector<std::string>{
        CAFLOW_SERVER_BINARY, "--cluster", spec, "--job", job, "--task", std::to_string(task),
        "--intra-op-threads", "1", "--inter-op-threads", "1", "--peer-wait-ms", "15000"});
  }
  bool ready() {
    for (auto* p : {ps0.get(), worker0.get(), worker1.get()})
      if (!p->wait_for_output("serving at", 20s)) {
        MESSAGE("server output: ", p->output());
        return false;
      }
    return true;
  }
  std::string target() const { return "caflow://127.0.0.1:" + std::to_string(ports[1]); }
};

inline session_options remote(const std::string& target) {
  session_options o;
  o.target = target;
  o.connect_timeout = 10s;
  o.operation_timeout = 30s;
  return o;
}

}  // namespace caflow::testing
