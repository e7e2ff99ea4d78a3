// The README's hand-started secure cluster with caflow-certs' files: a CA, one certificate per
// task from the cluster spec, a client certificate; two caflow-server processes, each with its
// own certificate, meet over mutual TLS and run a graph spanning both for an authenticated
// client. A client whose certificate another caflow-certs CA signed is refused.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "actors/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/process.hpp"
#include "test_util/temp_dir.hpp"

using namespace caflow;
using namespace std::chrono_literals;
using caflow::testing::check_error;
using caflow::testing::child_process;
using caflow::testing::temp_dir;

namespace {

const char* const cluster_id = "certs-test";

// Runs caflow-certs; REQUIREs success.
void certs(std::vector<std::string> args) {
  args.insert(args.begin(), CAFLOW_CERTS_BINARY);
  child_process p(args);
  const int raw = p.wait_exit(30s);
  INFO("caflow-certs output: ", p.output());
  REQUIRE(raw >= 0);
  REQUIRE(WIFEXITED(raw));
  REQUIRE(WEXITSTATUS(raw) == 0);
}

transport_security files(const temp_dir& dir, const std::string& stem, const std::string& ca_dir) {
  return {.cert = dir.file(stem + ".pem"), .key = dir.file(stem + ".key"),
          .ca = dir.file(ca_dir + "ca.pem"), .cluster_id = cluster_id};
}

// ps holds nothing but a multiply, worker 0 (the master) adds: both tasks exchange a tensor.
status_or<float> run_spanning_graph(const std::string& target, const transport_security& sec,
                                    std::chrono::milliseconds patience) {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_device("/job:worker/task:0").with_op_name("x"), dtype::float32);
  auto y = ops::mul(root.with_device("/job:ps/task:0").with_op_name("y"), x,
                    ops::constant(root.with_device("/job:ps/task:0"), 3.0f));
  auto z = ops::add(root.with_device("/job:worker/task:0").with_op_name("z"), y,
                    ops::constant(root.with_device("/job:worker/task:0"), 1.0f));
  session_options opts;
  opts.target = target;
  opts.connect_timeout = patience;
  opts.operation_timeout = 10s;
  opts.security = sec;
  session sess(root, opts);
  auto out = sess.run({{x, tensor::scalar(7.0f)}}, {z});
  if (!out.ok()) return out.get_status();
  return out->at(0).scalar_value<float>();
}

}  // namespace

TEST_CASE("tasks and a client with caflow-certs' certificates form a mutual-TLS cluster") {
  const temp_dir dir("caflow_certs_cluster_");
  const auto ports = caflow::testing::free_ports(2);
  const std::string spec = "ps=127.0.0.1:" + std::to_string(ports[0]) +
                           ";worker=127.0.0.1:" + std::to_string(ports[1]);
  certs({"ca", dir.path.string()});
  certs({"issue", dir.path.string(), "--cluster", spec});
  certs({"issue", dir.path.string(), "--client", "trainer"});
  // Another cluster's CA, and a client certificate it signed.
  certs({"ca", dir.file("other")});
  certs({"issue", dir.file("other"), "--client", "impostor"});

  std::vector<std::unique_ptr<child_process>> tasks;
  for (const auto& [job, stem] : {std::pair{"ps", "ps-0"}, std::pair{"worker", "worker-0"}}) {
    const auto sec = files(dir, stem, "");
    tasks.push_back(std::make_unique<child_process>(std::vector<std::string>{
        CAFLOW_SERVER_BINARY, "--cluster", spec, "--job", job, "--task", "0", "--tls-cert",
        sec.cert, "--tls-key", sec.key, "--tls-ca", sec.ca, "--cluster-id", cluster_id,
        "--intra-op-threads", "1", "--inter-op-threads", "1", "--peer-wait-ms", "20000"}));
  }
  for (auto& t : tasks) REQUIRE_MESSAGE(t->wait_for_output("serving at", 30s), t->output());

  const std::string target = "caflow://127.0.0.1:" + std::to_string(ports[1]);
  auto out = run_spanning_graph(target, files(dir, "trainer", ""), 10s);
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  CHECK(*out == 22.0f);  // 7 * 3 + 1

  // It trusts the cluster's CA, but the cluster does not trust its certificate.
  auto impostor = files(dir, "other/impostor", "");
  const auto start = std::chrono::steady_clock::now();
  check_error(run_spanning_graph(target, impostor, 1500ms), "cannot reach");
  CHECK(std::chrono::steady_clock::now() - start < 10s);

  // The cluster still serves its own client afterwards.
  out = run_spanning_graph(target, files(dir, "trainer", ""), 10s);
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  CHECK(*out == 22.0f);
}
