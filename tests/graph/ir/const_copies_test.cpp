// Copies of small constants and of feeds on the devices that read them
// (graph/ir/const_copies.hpp): the readers on another device take a local copy, so no
// _Send/_Recv pair carries a value that never changes or that the run request can carry.
#include "graph/ir/const_copies.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/core/device_name.hpp"
#include "test_util/in_process_cluster.hpp"
#include "test_util/placed_graph.hpp"

using namespace caflow;

namespace {

const std::string& ps = testing::ps_cpu;
const std::string& w0 = testing::worker0_cpu;
const std::string gpu = "/job:worker/replica:0/task:0/device:GPU:0";

node_def constant(std::string name, std::string device, tensor value,
                  std::vector<std::string> inputs = {}) {
  node_def d{std::move(name), "Const", std::move(device), std::move(inputs), {}};
  d.attrs["dtype"] = value.type();
  d.attrs["value"] = std::move(value);
  return d;
}

node_def binary(std::string op, std::string name, std::string device, std::string a,
                std::string b) {
  node_def d{std::move(name), std::move(op), std::move(device), {std::move(a), std::move(b)}, {}};
  d.attrs["T"] = dtype::float32;
  return d;
}

node_def feed(std::string name, std::string device, int64_t index) {
  node_def d{std::move(name), "_Arg", std::move(device), {}, {}};
  d.attrs["T"] = dtype::float32;
  d.attrs["index"] = index;
  return d;
}

using testing::build_graph;
using testing::node_named;
using testing::placement_of;
using testing::send_nodes;

}  // namespace

TEST_CASE("const copies: a worker's learning rate read on the ps gets a copy there") {
  graph_def def;
  def.nodes = {constant("lr", w0, tensor::scalar(0.1f)), constant("w", ps, tensor::scalar(2.0f)),
               binary("Mul", "scaled", ps, "w", "lr"), binary("Add", "twice", ps, "lr", "lr"),
               binary("Mul", "local", w0, "lr", "lr")};
  const graph g = build_graph(def);
  CHECK(send_nodes(g, placement_of(g)) == 1);

  const_copied_graph c = copy_constants_to_readers(g, placement_of(g));
  CHECK(c.copies == 1);
  REQUIRE(c.def.nodes.size() == 6);
  const node_def& copy = c.def.nodes.back();
  CHECK(copy.name == "lr/_copy");
  CHECK(copy.op == "Const");
  CHECK(copy.device == ps);
  CHECK(copy.attrs.at("value").get<tensor>().scalar_value<float>() == 0.1f);
  CHECK(c.placement.back() == ps);
  CHECK(node_named(c.def, "scaled").inputs == std::vector<std::string>{"w", "lr/_copy"});
  CHECK(node_named(c.def, "twice").inputs == std::vector<std::string>{"lr/_copy", "lr/_copy"});
  CHECK(node_named(c.def, "local").inputs == std::vector<std::string>{"lr", "lr"});  // its own device
  const graph after = build_graph(c.def);
  CHECK(send_nodes(after, c.placement) == 0);
}

TEST_CASE("const copies: big constants, ordered constants and other device types stay put") {
  SUBCASE("bigger than max_bytes") {
    graph_def def;
    def.nodes = {constant("big", w0, tensor::from_vector<float>(std::vector<float>(512, 1.0f))),
                 constant("w", ps, tensor::from_vector<float>(std::vector<float>(512, 2.0f))),
                 binary("Mul", "scaled", ps, "w", "big")};
    const graph g = build_graph(def);
    CHECK(copy_constants_to_readers(g, placement_of(g)).copies == 0);
    CHECK(copy_constants_to_readers(g, placement_of(g), 4096).copies == 1);
  }
  SUBCASE("with a control input") {
    graph_def def;
    def.nodes = {node_def{"gate", "NoOp", w0, {}, {}},
                 constant("lr", w0, tensor::scalar(0.1f), {"^gate"}),
                 constant("w", ps, tensor::scalar(2.0f)), binary("Mul", "scaled", ps, "w", "lr")};
    const graph g = build_graph(def);
    CHECK(copy_constants_to_readers(g, placement_of(g)).copies == 0);
  }
  SUBCASE("read on a GPU") {
    graph_def def;
    def.nodes = {constant("lr", w0, tensor::scalar(0.1f)), constant("w", gpu, tensor::scalar(2.0f)),
                 binary("Mul", "scaled", gpu, "w", "lr")};
    const graph g = build_graph(def);
    const_copied_graph c = copy_constants_to_readers(g, placement_of(g));
    CHECK(c.copies == 0);
    CHECK(c.def.nodes.empty());  // nothing to rebuild
  }
}

TEST_CASE("const copies: a session computes the same with the pass and without it") {
  auto root = scope::new_root();
  auto d0 = root.with_device("/job:localhost/replica:0/task:0/device:CPU:0");
  auto d1 = root.with_device("/job:localhost/replica:0/task:0/device:CPU:1");
  auto x = ops::placeholder(d1.with_op_name("x"), dtype::float32);
  auto lr = ops::constant(d0.with_op_name("lr"), 0.5f);
  auto y = ops::mul(d1.with_op_name("y"), x, lr);
  auto z = ops::add(d0.with_op_name("z"), y, lr);
  for (bool disabled : {false, true}) {
    CAPTURE(disabled);
    session_options opts;
    opts.device_count = {{"CPU", 2}};
    if (disabled) opts.optimizer.disabled = {const_copies_pass};
    session sess(root, opts);
    auto out = sess.run({{x, tensor::scalar(4.0f)}}, {z, lr});
    REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
    CHECK(out->at(0).scalar_value<float>() == 2.5f);
    CHECK(out->at(1).scalar_value<float>() == 0.5f);
  }
}

TEST_CASE("const copies: a feed read on two workers gets an _Arg of its index on each") {
  const std::string& w1 = testing::worker1_cpu;
  graph_def def;
  def.nodes = {feed("_arg_0", ps, 0), feed("_arg_1", ps, 1),
               binary("Add", "y0", w0, "_arg_0", "_arg_1"), binary("Mul", "y1", w1, "_arg_0", "_arg_0"),
               binary("Add", "z", ps, "y0", "y1"), binary("Add", "own", ps, "_arg_0", "z"),
               binary("Mul", "on_gpu", gpu, "_arg_1", "_arg_1")};
  const graph g = build_graph(def);
  // _arg_0 to both workers, _arg_1 to worker 0 and the GPU, y0 and y1 back.
  CHECK(send_nodes(g, placement_of(g)) == 6);

  const_copied_graph c = copy_constants_to_readers(g, placement_of(g));
  CHECK(c.copies == 3);  // _arg_0 on w0 and w1, _arg_1 on w0; not on the GPU
  REQUIRE(c.def.nodes.size() == 10);
  const node_def& a0_w0 = node_named(c.def, "_arg_0/_copy");
  CHECK(a0_w0.op == "_Arg");
  CHECK(a0_w0.device == w0);
  CHECK(a0_w0.attrs.at("index").get<int64_t>() == 0);
  const node_def& a0_w1 = node_named(c.def, "_arg_0/_copy_1");
  CHECK(a0_w1.device == w1);
  CHECK(a0_w1.attrs.at("index").get<int64_t>() == 0);
  CHECK(node_named(c.def, "_arg_1/_copy").attrs.at("index").get<int64_t>() == 1);
  CHECK(node_named(c.def, "y0").inputs == std::vector<std::string>{"_arg_0/_copy", "_arg_1/_copy"});
  CHECK(node_named(c.def, "y1").inputs ==
        std::vector<std::string>{"_arg_0/_copy_1", "_arg_0/_copy_1"});
  CHECK(node_named(c.def, "own").inputs == std::vector<std::string>{"_arg_0", "z"});
  CHECK(node_named(c.def, "on_gpu").inputs == std::vector<std::string>{"_arg_1", "_arg_1"});
  const graph after = build_graph(c.def);
  CHECK(send_nodes(after, c.placement) == 3);  // y0, y1 back; _arg_1 to the GPU
}

TEST_CASE("const copies: feeds read on other tasks of a cluster, big and small, with the pass "
          "and without it") {
  auto cluster = testing::start_in_process_cluster(1, 2);
  REQUIRE_MESSAGE(cluster.ok(), cluster.get_status().to_string());
  const auto& servers = *cluster;
  auto root = scope::new_root();
  auto on_ps = root.with_device(full_device_name("ps", 0, "CPU", 0));
  auto on_w0 = root.with_device(full_device_name("worker", 0, "CPU", 0));
  auto on_w1 = root.with_device(full_device_name("worker", 1, "CPU", 0));
  auto x = ops::placeholder(on_ps.with_op_name("x"), dtype::float32);
  auto big = ops::placeholder(on_ps.with_op_name("big"), dtype::float32);
  auto y0 = ops::add(on_w0.with_op_name("y0"), x, ops::constant(on_w0, 1.0f));
  auto y1 = ops::mul(on_w1.with_op_name("y1"), x, ops::constant(on_w1, 2.0f));
  auto z = ops::add(on_ps.with_op_name("z"), y0, y1);
  auto total = ops::sum(on_w1.with_op_name("total"), big, ops::constant(on_w1, 0));
  // 8 MiB: more than one chunk, so it goes ahead of worker 1's request in chunks.
  const int64_t n = 2 << 20;
  const tensor ones = tensor::from_vector<float>(std::vector<float>(n, 1.0f));
  for (bool disabled : {false, true}) {
    CAPTURE(disabled);
    session_options opts{.target = servers[0]->target()};
    if (disabled) opts.optimizer.disabled = {const_copies_pass};
    session sess(root, opts);
    for (float v : {3.0f, -1.5f}) {
      auto out = sess.run({{x, tensor::scalar(v)}, {big, ones}}, {z, total, x});
      REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
      CHECK(out->at(0).scalar_value<float>() == (v + 1.0f) + v * 2.0f);
      CHECK(out->at(1).scalar_value<float>() == static_cast<float>(n));
      CHECK(out->at(2).scalar_value<float>() == v);
    }
  }
}
