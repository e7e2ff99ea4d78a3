// caflow-train --model wide-deep in the modes it runs in: one process; the embedded cluster
// (2 ps + 2 workers in the process); and 2 ps + 2 workers, each its own caflow-train process,
// synchronous and asynchronous. Small tables and data (seconds per run); each checks that the
// chief's test AUC is far above chance and close to the planted model's own.
#include <doctest/doctest.h>

#include <memory>
#include <regex>

#include "test_util/process.hpp"
#include "test_util/train_app.hpp"

using namespace std::chrono_literals;
using caflow::testing::child_process;
using caflow::testing::exit_code;

namespace {

std::vector<std::string> train_args(std::vector<std::string> extra) {
  std::vector<std::string> args{CAFLOW_TRAIN_BINARY, "--model", "wide-deep", "--wd-rows", "5000",
                                "--wd-dim", "8", "--wd-vocab", "2000", "--wd-train-examples",
                                "200000", "--wd-test-examples", "20000", "--threads", "1",
                                "--no-progress"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

struct auc_report {
  double trained = -1, planted = -1;
};

auc_report aucs_in(const std::string& output) {
  std::smatch m;
  static const std::regex re(R"(test AUC: ([0-9.]+) \(planted model's AUC: ([0-9.]+))");
  if (!std::regex_search(output, m, re)) return {};
  return {std::stod(m[1]), std::stod(m[2])};
}

// Far above chance, and within 0.04 of the best any model reaches on these (small) tables.
void check_auc(const std::string& output) {
  MESSAGE(output);
  const auc_report r = aucs_in(output);
  CHECK(r.planted > 0.8);
  CHECK(r.trained > 0.75);
  CHECK(r.trained > r.planted - 0.04);
  CHECK(r.trained <= r.planted + 0.01);
}

struct cluster {
  cluster() {
    auto ports = caflow::testing::free_ports(4);
    spec = "ps=127.0.0.1:" + std::to_string(ports[0]) + ",127.0.0.1:" + std::to_string(ports[1]) +
           ";worker=127.0.0.1:" + std::to_string(ports[2]) + ",127.0.0.1:" +
           std::to_string(ports[3]);
  }
  std::string spec;
  std::vector<std::unique_ptr<child_process>> procs;
  std::vector<std::string> names;  // job:task of each

  child_process& trainer(const std::string& job, int task, std::vector<std::string> extra) {
    extra.insert(extra.end(),
                 {"--insecure", "--cluster", spec, "--job", job, "--task", std::to_string(task)});
    procs.push_back(std::make_unique<child_process>(train_args(extra)));
    names.push_back(job + ":" + std::to_string(task));
    return *procs.back();
  }

  // Two ps and two workers, each a caflow-train process; the chief's output once all exit.
  std::string run(const std::string& mode) {
    trainer("ps", 0, {});
    trainer("ps", 1, {});
    auto& w0 = trainer("worker", 0, {"--mode", mode});
    auto& w1 = trainer("worker", 1, {"--mode", mode});
    for (auto* w : {&w0, &w1}) {
      const int rc = exit_code(*w, 240s);
      if (rc != 0)
        for (size_t i = 0; i < procs.size(); ++i) {
          procs[i]->wait_exit(100ms);  // reads what it wrote so far
          MESSAGE(names[i], " output:\n", procs[i]->output());
        }
      REQUIRE(rc == 0);
    }
    CHECK(aucs_in(w1.output()).trained < 0);  // only the chief evaluates
    return w0.output();
  }
};

}  // namespace

TEST_CASE("wide-deep in one process recovers the planted model") {
  child_process p(train_args({"--mode", "local"}));
  REQUIRE(exit_code(p, 180s) == 0);
  check_auc(p.output());
}

TEST_CASE("wide-deep on the embedded cluster: 2 ps, 2 workers, synchronous replicas") {
  child_process p(train_args({}));  // the defaults: sync, --ps-tasks 2, 2 workers
  REQUIRE(exit_code(p, 180s) == 0);
  CHECK(p.output().find("embedded cluster: 2 ps, 2 workers") != std::string::npos);
  check_auc(p.output());
}

TEST_CASE("wide-deep between-graph synchronous: 2 ps and 2 workers as processes") {
  cluster c;
  check_auc(c.run("sync"));
}

TEST_CASE("wide-deep between-graph asynchronous: 2 ps and 2 workers as processes") {
  cluster c;
  check_auc(c.run("async"));
}

TEST_CASE("wide-deep's bad flags are reported by name before anything runs") {
  child_process parallel({CAFLOW_TRAIN_BINARY, "--model", "wide-deep", "--mode", "model-parallel"});
  CHECK(exit_code(parallel, 30s) == 1);
  CHECK(parallel.output().find("--model wide-deep has no layers to spread over workers") !=
        std::string::npos);
  child_process zipf({CAFLOW_TRAIN_BINARY, "--model", "wide-deep", "--wd-zipf", "0"});
  CHECK(exit_code(zipf, 30s) == 1);
  CHECK(zipf.output().find("--wd-zipf") != std::string::npos);
  child_process rows({CAFLOW_TRAIN_BINARY, "--model", "wide-deep", "--wd-rows", "0"});
  CHECK(exit_code(rows, 30s) == 1);
  CHECK(rows.output().find("--wd-rows") != std::string::npos);
}
