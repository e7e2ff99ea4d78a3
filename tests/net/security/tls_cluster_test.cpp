// Starts three caflow-server processes (one ps, two workers) speaking TLS with mutual
// certificate authentication, several times over, and runs graphs whose nodes span all three.
// Two ways a TLS cluster used to lose its links (docs/caf_0.17_notes.md, "TLS"): at start-up,
// when two tasks connected to each other at the same moment, and whenever a client left. Either
// showed as servers logging "task ... was lost" and steps timing out.
//
// CAFLOW_TLS_CLUSTER_RUNS=N repeats the start-up N times instead of 3 (to measure how often it
// fails).
#include <doctest/doctest.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/test_certs.hpp"
#include "test_util/three_process_cluster.hpp"

using namespace caflow;
using namespace std::chrono_literals;
using caflow::testing::test_certs;
using caflow::testing::check_tensor;
using caflow::testing::three_process_cluster;
namespace fs = std::filesystem;

namespace {


const char* const cluster_id = "tls-cluster-test";

int runs() {
  const char* env = std::getenv("CAFLOW_TLS_CLUSTER_RUNS");
  const int n = env != nullptr ? std::atoi(env) : 0;
  return n > 0 ? n : 3;
}

// ps holds v; worker 1 multiplies; ps adds v back; worker 0 (the session's master) sums: every
// pair of tasks exchanges a tensor.
struct spanning_graph {
  scope root = scope::new_root();
  output init, x, prod, total;

  spanning_graph() {
    auto ps = root.with_device("/job:ps/task:0");
    auto w0 = root.with_device("/job:worker/task:0");
    auto w1 = root.with_device("/job:worker/task:1");
    auto v = ops::variable(ps.with_op_name("v"), partial_shape{3}, dtype::float32);
    init = ops::assign(ps.with_op_name("init"), v,
                       ops::constant(ps, std::vector<float>{1, 2, 3}, {3}));
    x = ops::placeholder(w0.with_op_name("x"), dtype::float32, {.shape = {3}});
    prod = ops::mul(w1.with_op_name("prod"), x, v);                            // ps, w0 -> w1
    auto back = ops::add(ps.with_op_name("back"), prod, v);                    // w1 -> ps
    total = ops::sum(w0.with_op_name("total"), back, std::vector<int>{0});     // ps -> w0
  }

  // One client's session: initializes v, runs the graph, checks the values, leaves.
  bool run_once(const session_options& opts) const {
    session sess(root, opts);
    auto initialized = sess.run({init});
    CHECK_MESSAGE(initialized.ok(), initialized.get_status().to_string());
    if (!initialized.ok()) return false;
    auto out = sess.run({{x, tensor::from_vector<float>({1, 10, 100})}}, {total, prod});
    CHECK_MESSAGE(out.ok(), out.get_status().to_string());
    if (!out.ok()) return false;
    // prod = [1*1, 10*2, 100*3] = [1, 20, 300]; back = prod + v = [2, 22, 303]; total = 327.
    CHECK(out->at(0).scalar_value<float>() == 327.0f);
    check_tensor(out->at(1), tensor_shape{3}, std::vector<float>{1, 20, 300});
    return true;
  }
};

}  // namespace

TEST_CASE("a three-task TLS cluster starts with every link up, keeps them when a client leaves, "
          "and runs a graph spanning all tasks") {
  const test_certs certs("caflow_tls_cluster_");
  if (!certs.made) {
    MESSAGE("skipped: the openssl command is missing");
    return;
  }
  session_options opts;
  opts.connect_timeout = 10s;
  // A step whose messages go down a dropped link ends only at this bound.
  opts.operation_timeout = 10s;
  opts.security = {.cert = certs.file("client.pem"), .key = certs.file("client.key"),
                   .ca = certs.file("ca.pem"), .cluster_id = cluster_id};
  const spanning_graph g;
  int failed = 0;
  const int n = runs();
  for (int run = 0; run < n; ++run) {
    CAPTURE(run);
    three_process_cluster c({"--tls-cert", certs.file("server.pem"), "--tls-key",
                             certs.file("server.key"), "--tls-ca", certs.file("ca.pem"),
                             "--cluster-id", cluster_id});
    const auto start = std::chrono::steady_clock::now();
    const bool ready = c.ready();
    CHECK(ready);
    // Three tasks on loopback meet well within a second; the peer wait is 20 s.
    CHECK(std::chrono::steady_clock::now() - start < 10s);
    opts.target = c.target();
    bool ok = ready && g.run_once(opts);
    // The first client has left. A dropped link is noticed within a connection timeout (1 s).
    std::this_thread::sleep_for(1500ms);
    for (auto* server : {c.ps0.get(), c.worker0.get(), c.worker1.get()}) {
      const bool lost = server->wait_for_output("was lost", 200ms);
      CHECK_MESSAGE(!lost, server->output());
      ok &= !lost;
    }
    ok = ok && g.run_once(opts);
    failed += ok ? 0 : 1;
  }
  MESSAGE(failed, " of ", n, " TLS clusters lost a link or failed a step");
}
