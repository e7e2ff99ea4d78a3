#include <doctest/doctest.h>

#include "graph/client/ops/ops.hpp"
#include "graph/client/train/replica_device_setter.hpp"

using namespace caflow;

namespace {

std::string device_of(const scope& s, const output& o) {
  auto n = s.find_node(o.node);
  REQUIRE(n.has_value());
  return n->device;
}

output var(const scope& s, std::vector<int64_t> dims) {
  return ops::variable(s, partial_shape(dims), dtype::float32);
}

}  // namespace

TEST_CASE("round robin puts variables on ps tasks in turn and the rest on the worker") {
  auto root = scope::new_root().with_device_function(
      train::replica_device_setter({.ps_tasks = 2, .worker_device = "/job:worker/task:1"}));
  auto a = var(root, {2});
  auto b = var(root, {2});
  auto c = var(root, {2});
  auto x = ops::mul(root, ops::constant(root, 2.0f), a);
  CHECK(device_of(root, a) == "/job:ps/task:0");
  CHECK(device_of(root, b) == "/job:ps/task:1");
  CHECK(device_of(root, c) == "/job:ps/task:0");
  CHECK(device_of(root, x) == "/job:worker/task:1");
}

TEST_CASE("greedy placement balances bytes across ps tasks") {
  auto root = scope::new_root().with_device_function(train::replica_device_setter(
      {.ps_tasks = 2, .strategy = train::ps_strategy::greedy_by_bytes}));
  auto big = var(root, {100, 10});   // 4000 bytes -> task 0
  auto small1 = var(root, {10});     // task 1 (40)
  auto small2 = var(root, {10});     // task 1 (80 < 4000)
  auto medium = var(root, {1000});   // task 1 (80 < 4000), now 4080
  auto last = var(root, {1});        // task 0 (4000 < 4080)
  CHECK(device_of(root, big) == "/job:ps/task:0");
  CHECK(device_of(root, small1) == "/job:ps/task:1");
  CHECK(device_of(root, small2) == "/job:ps/task:1");
  CHECK(device_of(root, medium) == "/job:ps/task:1");
  CHECK(device_of(root, last) == "/job:ps/task:0");
}

TEST_CASE("an explicit device wins field by field; reference users follow their variable") {
  auto root = scope::new_root().with_device_function(train::replica_device_setter(
      {.ps_tasks = 3, .worker_device = "/job:worker/task:0"}));
  auto pinned = var(root.with_device("/job:ps/task:2"), {2});
  auto cpu = ops::constant(root.with_device("/device:CPU:0"), 1.0f);
  auto on_other_job = var(root.with_device("/job:local"), {2});
  auto init = ops::assign(root, pinned, ops::constant(root, std::vector<float>{1, 2}, {2}));
  CHECK(device_of(root, pinned) == "/job:ps/task:2");
  CHECK(device_of(root, cpu) == "/job:worker/task:0/device:CPU:0");
  // The job differs from the ps job, so no task is chosen for it.
  CHECK(device_of(root, on_other_job) == "/job:local");
  CHECK(device_of(root, init).empty());
}

TEST_CASE("no ps tasks: everything goes to the worker device") {
  auto root = scope::new_root().with_device_function(
      train::replica_device_setter({.worker_device = "/job:worker/task:3"}));
  auto v = var(root, {2});
  CHECK(device_of(root, v) == "/job:worker/task:3");
}
