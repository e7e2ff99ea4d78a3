#pragma once
// Three caflow-server processes on 127.0.0.1 (one ps, two workers, ports picked free), for tests
// whose graphs span processes; the servers are reaped when the struct goes.
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "actors/session/session.hpp"
#include "graph/platform/time_scale.hpp"
#include "test_util/process.hpp"

namespace caflow::testing {

using namespace std::chrono_literals;

struct three_process_cluster {
  // `extra` goes on every server's command line after the defaults (a later flag wins).
  explicit three_process_cluster(std::vector<std::string> extra = {}) : extra(std::move(extra)) {}

  std::vector<std::string> extra;
  std::vector<int> ports = caflow::testing::free_ports(3);
  std::string spec = "ps=127.0.0.1:" + std::to_string(ports[0]) + ";worker=127.0.0.1:" +
                     std::to_string(ports[1]) + ",127.0.0.1:" + std::to_string(ports[2]);
  std::unique_ptr<child_process> ps0 = start("ps", 0);
  std::unique_ptr<child_process> worker0 = start("worker", 0);
  std::unique_ptr<child_process> worker1 = start("worker", 1);

  std::unique_ptr<child_process> start(const std::string& job, int task) {
    std::vector<std::string> argv{CAFLOW_SERVER_BINARY, "--insecure", "--cluster", spec, "--job", job,
                                  "--task", std::to_string(task), "--intra-op-threads", "1",
                                  "--inter-op-threads", "1", "--peer-wait-ms", "20000"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return std::make_unique<child_process>(argv);
  }
  bool ready() {
    for (auto* p : {ps0.get(), worker0.get(), worker1.get()})
      if (!p->wait_for_output("serving at", 30s)) {
        MESSAGE("server output: ", p->output());
        return false;
      }
    return true;
  }
  // Every server's output so far, each under its task's name: what a failed step's message
  // leaves out (which peer closed a link, and why).
  std::string outputs() {
    std::string out;
    const char* names[] = {"ps 0", "worker 0", "worker 1"};
    int k = 0;
    for (auto* p : {ps0.get(), worker0.get(), worker1.get()})
      out += std::string("--- ") + names[k++] + " ---\n" + p->output_now();
    return out;
  }
  std::string address(int i) const { return "127.0.0.1:" + std::to_string(ports[i]); }
  // Worker 0's master.
  std::string target() const { return "caflow://" + address(1); }
};

inline session_options remote(const std::string& target) {
  session_options o;
  o.target = target;
  o.connect_timeout = scaled(10s);
  // Longer than failure detection takes, so a frozen peer is reported as lost, not as a timeout.
  o.operation_timeout = scaled_failure(30s);
  return o;
}

}  // namespace caflow::testing
