// Control flow across tasks: a cluster of real servers in this process. A cond whose
// branches run on different tasks, and a loop whose body alternates between the two tasks for
// 1,000 iterations (the partitioner adds a control loop on the task without the LoopCond).
#include <doctest/doctest.h>

#include "actors/server/server.hpp"
#include "actors/session/session.hpp"
#include "graph/client/gradients/gradients.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/core/device_name.hpp"
#include "test_util/in_process_cluster.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_tensor;

TEST_CASE("a cond with branches on two tasks, and a loop body alternating between them") {
  auto cluster = caflow::testing::start_in_process_cluster(1, 2);  // ps 0, worker 0, worker 1
  REQUIRE_MESSAGE(cluster.ok(), cluster.get_status().to_string());
  const auto& servers = *cluster;
  const std::string w0 = full_device_name("worker", 0, "CPU", 0);
  const std::string w1 = full_device_name("worker", 1, "CPU", 0);
  auto root = scope::new_root().with_device(w0);

  auto p = ops::placeholder(root.with_op_name("p"), dtype::boolean, {.shape = {}});
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32, {.shape = {2}});
  auto branched = ops::cond(
      root, p,
      [&](const scope& t) {
        return std::vector{ops::mul(t.with_device(w1), x, ops::constant(t, 3.0f))};
      },
      [&](const scope& f) { return std::vector{ops::add(f, x, ops::constant(f, 100.0f))}; });

  // v <- (v + 1 on worker 1) * 1 on worker 0, i < 1000: v + 1000 at the end; and a float
  // variable of the loop accumulates i on worker 1.
  auto looped = ops::while_loop(
      root, {ops::constant(root, 0), ops::constant(root, 0.5f), ops::constant(root, 0.0)},
      [&](const scope& c, const std::vector<output>& v) {
        return ops::less(c, v[0], ops::constant(c, 1000));
      },
      [&](const scope& b, const std::vector<output>& v) {
        const scope on1 = b.with_device(w1);
        auto plus = ops::add(on1, v[1], ops::constant(on1, 1.0f));
        auto back = ops::mul(b, plus, ops::constant(b, 1.0f));
        auto sum = ops::add(on1, v[2], ops::cast(on1, v[0], dtype::float64));
        return std::vector{ops::add(b, v[0], ops::constant(b, 1)), back, sum};
      },
      {.parallel_iterations = 8, .maximum_iterations = {}, .shape_invariants = {}});
  // And a loop wholly on worker 0, in the same graph.
  auto simple = ops::while_loop(
      root, {ops::constant(root, 0)},
      [&](const scope& c, const std::vector<output>& v) {
        return ops::less(c, v[0], ops::constant(c, 10));
      },
      [&](const scope& b, const std::vector<output>& v) {
        return std::vector{ops::add(b, v[0], ops::constant(b, 1))};
      });
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
  REQUIRE(branched.size() == 1);
  REQUIRE(looped.size() == 3);

  session sess(root, {.target = servers[1]->target()});
  const tensor xv = tensor::from_vector<float>({1, 2});
  auto t = sess.run({{p, tensor::scalar(true)}, {x, xv}}, {branched[0]});
  REQUIRE_MESSAGE(t.ok(), t.get_status().to_string());
  check_tensor(t->at(0), tensor_shape{2}, std::vector<float>{3, 6});
  auto f = sess.run({{p, tensor::scalar(false)}, {x, xv}}, {branched[0]});
  REQUIRE_MESSAGE(f.ok(), f.get_status().to_string());
  check_tensor(f->at(0), tensor_shape{2}, std::vector<float>{101, 102});

  auto one_device = sess.run({simple[0]});
  REQUIRE_MESSAGE(one_device.ok(), one_device.get_status().to_string());
  CHECK(one_device->at(0).scalar_value<int32_t>() == 10);
  for (int rep = 0; rep < 2; ++rep) {
    auto r = sess.run({looped[0], looped[1], looped[2]});
    REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
    for (const tensor& v : *r) REQUIRE_MESSAGE(v.initialized(), "a fetched loop output is missing");
    CHECK(r->at(0).scalar_value<int32_t>() == 1000);
    CHECK(r->at(1).scalar_value<float>() == 1000.5f);
    CHECK(r->at(2).scalar_value<double>() == 999.0 * 1000.0 / 2.0);
  }
}

TEST_CASE("a nested loop whose body spans tasks is refused, naming both loops") {
  auto cluster = caflow::testing::start_in_process_cluster(1, 2);  // ps 0, worker 0, worker 1
  REQUIRE_MESSAGE(cluster.ok(), cluster.get_status().to_string());
  const auto& servers = *cluster;
  const std::string w1 = full_device_name("worker", 1, "CPU", 0);
  auto root = scope::new_root().with_device(full_device_name("worker", 0, "CPU", 0));
  auto less_than = [](int n) {
    return [n](const scope& c, const std::vector<output>& v) {
      return ops::less(c, v[0], ops::constant(c, n));
    };
  };
  auto out = ops::while_loop(root, {ops::constant(root, 0)}, less_than(2),
                             [&](const scope& b, const std::vector<output>& v) {
                               auto inner = ops::while_loop(
                                   b, {v[0]}, less_than(5),
                                   [&](const scope& ib, const std::vector<output>& w) {
                                     return std::vector{ops::add(ib.with_device(w1), w[0],
                                                                 ops::constant(ib, 1))};
                                   });
                               return std::vector{ops::add(b, inner[0], ops::constant(b, 1))};
                             });
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
  session sess(root, {.target = servers[1]->target()});
  auto r = sess.run({out[0]});
  REQUIRE_FALSE(r.ok());
  CHECK(r.get_status().message().find("is nested in loop 'while/while_context'") !=
        std::string::npos);
  CHECK(r.get_status().message().find("place a nested loop's body on one device") !=
        std::string::npos);
}
