// The README's hand-started secure cluster with caflow-certs' files: a CA, one certificate per
// task from the cluster spec, a client certificate; two caflow-server processes, each with its
// own certificate, meet over mutual TLS and run a graph spanning them for an authenticated
// client, a session and caflow-example alike. A client whose certificate another caflow-certs
// CA signed is refused.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <chrono>
#include <utility>
#include <memory>
#include <string>
#include <vector>

#include "actors/session/session.hpp"
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

struct finished {
  int exit_code = -1;  // -1: killed, or still running after the wait
  std::string output;
};

finished run_to_end(const std::vector<std::string>& argv) {
  child_process p(argv);
  const int raw = p.wait_exit(60s);
  return {raw >= 0 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, p.output()};
}

// Runs caflow-certs; REQUIREs success.
void certs(std::vector<std::string> args) {
  args.insert(args.begin(), CAFLOW_CERTS_BINARY);
  const auto r = run_to_end(args);
  INFO("caflow-certs output: ", r.output);
  REQUIRE(r.exit_code == 0);
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
  const auto ports = caflow::testing::free_ports(3);
  const std::string spec = "ps=127.0.0.1:" + std::to_string(ports[0]) + ";worker=127.0.0.1:" +
                           std::to_string(ports[1]) + ",127.0.0.1:" + std::to_string(ports[2]);
  certs({"ca", dir.path.string()});
  certs({"issue", dir.path.string(), "--cluster", spec});
  certs({"issue", dir.path.string(), "--client", "trainer"});
  // Another cluster's CA, and a client certificate it signed.
  certs({"ca", dir.file("other")});
  certs({"issue", dir.file("other"), "--client", "impostor"});

  std::vector<std::unique_ptr<child_process>> tasks;
  for (const auto& [job, task] : {std::pair{"ps", "0"}, std::pair{"worker", "0"},
                                  std::pair{"worker", "1"}}) {
    const auto sec = files(dir, std::string(job) + "-" + task, "");
    tasks.push_back(std::make_unique<child_process>(std::vector<std::string>{
        CAFLOW_SERVER_BINARY, "--cluster", spec, "--job", job, "--task", task, "--tls-cert",
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

  // caflow-example's graph spans ps, worker 0 and worker 1; its values are worked out in
  // apps/example_main.cpp (and checked by the apps_example test).
  const auto client = files(dir, "trainer", "");
  const auto example = run_to_end({CAFLOW_EXAMPLE_BINARY, "--target", target, "--cluster-id",
                                   cluster_id, "--tls-cert", client.cert, "--tls-key", client.key,
                                   "--tls-ca", client.ca});
  INFO("caflow-example output: ", example.output);
  CHECK(example.exit_code == 0);
  CHECK(example.output.find("(round 1): float32[3,2] {2.5, 2.5, 4.5, 4.5, 16.5, 20.5}") !=
        std::string::npos);
  // Without a certificate it is refused, as any client.
  const auto plain = run_to_end({CAFLOW_EXAMPLE_BINARY, "--target", target, "--cluster-id",
                                 cluster_id});
  CHECK(plain.exit_code == 1);
  CHECK(plain.output.find("cannot reach") != std::string::npos);
}

TEST_CASE("caflow-example checks its TLS files before it connects") {
  const temp_dir dir("caflow_certs_example_");
  certs({"ca", dir.path.string()});
  const auto r = run_to_end({CAFLOW_EXAMPLE_BINARY, "--target", "caflow://127.0.0.1:1",
                             "--tls-cert", dir.file("ca.pem"), "--tls-key", dir.file("missing.key"),
                             "--tls-ca", dir.file("ca.pem")});
  INFO("output: ", r.output);
  CHECK(r.exit_code == 1);
  CHECK(r.output == "caflow-example: --tls-key file '" + dir.file("missing.key") +
                        "' cannot be opened: No such file or directory\n");
}
