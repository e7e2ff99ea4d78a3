// Session options reaching a cluster's master: the graph passes run on every cached partition
// (and can be switched off), soft placement, and the placement table a session can log.
#include <doctest/doctest.h>

#include <iostream>
#include <sstream>

#include "actors/server/server.hpp"
#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;

namespace {

std::unique_ptr<server> local_cluster() {
  auto srv = create_local_server({.intra_op_threads = 1, .inter_op_threads = 1});
  REQUIRE_MESSAGE(srv.ok(), srv.get_status().to_string());
  return std::move(*srv);
}

// y = (x + 2*3) * (x + 2*3), the two sums written out twice: one shared subexpression and a
// foldable constant chain. x = 1 gives 49.
struct shared_sums {
  scope root = scope::new_root();
  output x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  output six = ops::mul(root.with_op_name("six"), ops::constant(root.with_op_name("two"), 2.0f),
                        ops::constant(root.with_op_name("three"), 3.0f));
  output y = ops::mul(root.with_op_name("y"), ops::add(root.with_op_name("b"), x, six),
                      ops::add(root.with_op_name("c"), x, six));
};

// Captures what the session prints to stderr while alive.
struct stderr_capture {
  std::ostringstream text;
  std::streambuf* old = std::cerr.rdbuf(text.rdbuf());
  ~stderr_capture() { std::cerr.rdbuf(old); }
};

}  // namespace

TEST_CASE("the master runs CSE and constant folding on each partition, reported in stats") {
  auto srv = local_cluster();
  shared_sums g;
  session on(g.root, {.target = srv->target()});
  auto out = on.run({{g.x, tensor::scalar(1.0f)}}, {g.y});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  CHECK(out->at(0).scalar_value<float>() == 49.0f);
  const session_stats st = on.stats();
  CHECK(st.nodes_removed >= 3);  // the duplicate sum, and two, three, six folded away
  CHECK(st.nodes_folded >= 1);
  CHECK(st.last_optimization.find("cse") != std::string::npos);
  CHECK(st.last_optimization.find("constant_folding") != std::string::npos);
  // The second step of the same signature reuses the cached partitions: no new report.
  auto again = on.run({{g.x, tensor::scalar(2.0f)}}, {g.y});
  REQUIRE(again.ok());
  CHECK(again->at(0).scalar_value<float>() == 64.0f);
  CHECK(on.stats().nodes_removed == st.nodes_removed);

  session off(g.root, {.target = srv->target(),
                       .optimizer = {.cse = false, .constant_folding = false}});
  auto plain = off.run({{g.x, tensor::scalar(1.0f)}}, {g.y});
  REQUIRE(plain.ok());
  CHECK(plain->at(0).scalar_value<float>() == 49.0f);
  CHECK(off.stats().nodes_removed == 0);
  CHECK(off.stats().nodes_folded == 0);
}

TEST_CASE("stateful nodes on a partition are never merged by CSE") {
  auto srv = local_cluster();
  auto root = scope::new_root();
  auto v = ops::variable(root.with_op_name("v"), tensor_shape{}, dtype::float32);
  auto init = ops::assign(root.with_op_name("init"), v, ops::constant(root, 0.0f));
  auto one = ops::constant(root.with_op_name("one"), 1.0f);
  auto inc1 = ops::assign_add(root.with_op_name("inc1"), v, one);
  auto inc2 = ops::assign_add(root.with_op_name("inc2"), v, one);
  session sess(root, {.target = srv->target()});
  REQUIRE(sess.run_targets({operation{init.node, {}}}).ok());
  REQUIRE(sess.run_targets({operation{inc1.node, {}}, operation{inc2.node, {}}}).ok());
  auto value = sess.run({ops::identity(root.with_op_name("read"), v)});
  REQUIRE_MESSAGE(value.ok(), value.get_status().to_string());
  CHECK(value->at(0).scalar_value<float>() == 2.0f);
}

TEST_CASE("soft placement is a session option") {
  auto srv = local_cluster();
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto y = ops::neg(root.with_op_name("y").with_device("/device:GPU:0"), x);
  session strict(root, {.target = srv->target()});
  check_error(strict.run({{x, tensor::scalar(3.0f)}}, {y}), "GPU");
  session soft(root, {.target = srv->target(), .allow_soft_placement = true});
  auto out = soft.run({{x, tensor::scalar(3.0f)}}, {y});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  CHECK(out->at(0).scalar_value<float>() == -3.0f);
}

TEST_CASE("a session logs placement as one table per run signature") {
  auto srv = local_cluster();
  shared_sums g;
  stderr_capture err;
  session sess(g.root, {.target = srv->target(), .log_device_placement = true});
  REQUIRE(sess.run({{g.x, tensor::scalar(1.0f)}}, {g.y}).ok());
  REQUIRE(sess.run({{g.x, tensor::scalar(2.0f)}}, {g.y}).ok());
  const std::string text = err.text.str();
  CHECK(text.find("device placement") != std::string::npos);
  // One row per node with op and device, printed once for the two steps.
  const auto row = text.find("\ny ");
  REQUIRE(row != std::string::npos);
  const std::string line = text.substr(row + 1, text.find('\n', row + 1) - row - 1);
  CHECK(line.find("Mul") != std::string::npos);
  CHECK(line.find("/job:localhost/replica:0/task:0/device:CPU:0") != std::string::npos);
  CHECK(text.find("device placement", text.find("device placement") + 1) == std::string::npos);

  stderr_capture local_err;
  session local(g.root, {.log_device_placement = true});
  REQUIRE(local.run({{g.x, tensor::scalar(1.0f)}}, {g.y}).ok());
  CHECK(local_err.text.str().find("device:CPU:0") != std::string::npos);
}
