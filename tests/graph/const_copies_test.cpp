// Copies of small constants on the devices that read them (graph/ir/const_copies.hpp): the
// readers on another device take a local copy, so no _Send/_Recv pair carries a value that
// never changes.
#include "graph/ir/const_copies.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "actors/session.hpp"
#include "graph/client/ops/ops.hpp"
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
    CHECK(c.def == g.def());
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
