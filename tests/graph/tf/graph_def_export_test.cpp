// caflow graphs written as TensorFlow GraphDefs and read back identical, in all three encodings.
#include <doctest/doctest.h>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/tf/graph_def_export.hpp"
#include "graph/tf/graph_def_import.hpp"
#include "graph/tf/proto/graph.pb.h"

using namespace caflow;
using tf::graph_encoding;

namespace {

// A graph with every attr kind caflow's ops use, devices, colocation and control inputs.
graph_def example_graph() {
  graph_def g;
  g.nodes = {
      {"x", "Placeholder", "/job:worker/replica:0/task:1/device:CPU:0", {},
       {{"dtype", dtype::float32}, {"shape", partial_shape{-1, 4, 4, 1}}}},
      {"p", "Placeholder", "", {}, {{"dtype", dtype::int64}, {"shape", partial_shape::unknown()}}},
      {"k", "Const", "/job:ps/task:0", {},
       {{"dtype", dtype::float32},
        {"value", tensor::from_vector<float>({1, 0.5f, -2, 0.25f}, {2, 2, 1, 1})}}},
      {"k/read", "Identity", "", {"k"},
       {{"T", dtype::float32}, {"_class", std::vector<std::string>{"loc:@k"}}}},
      {"conv", "Conv2D", "", {"x", "k/read"},
       {{"T", dtype::float32}, {"strides", std::vector<int64_t>{1, 1, 1, 1}},
        {"padding", "SAME"}, {"explicit_paddings", std::vector<int64_t>{}},
        {"use_cudnn_on_gpu", true}, {"data_format", "NHWC"},
        {"dilations", std::vector<int64_t>{1, 1, 1, 1}}}},
      {"flags", "Const", "", {},
       {{"dtype", dtype::boolean}, {"value", tensor::from_vector<bool>({true, false, true})}}},
      {"bytes", "Const", "", {}, {{"dtype", dtype::uint8}, {"value", tensor::scalar<uint8_t>(200)}}},
      {"wide", "Const", "", {},
       {{"dtype", dtype::float64}, {"value", tensor::from_vector<double>({1e-300, 3})}}},
      {"big", "Const", "", {},
       {{"dtype", dtype::int64}, {"value", tensor::from_vector<int64_t>({int64_t{1} << 60, -1})}}},
      {"sq", "Squeeze", "", {"conv", "^flags"},
       {{"T", dtype::float32}, {"squeeze_dims", std::vector<int64_t>{}}}},
      {"q", "FIFOQueueV2", "", {},
       {{"component_types", std::vector<dtype>{dtype::float32, dtype::int32}},
        {"shapes", std::vector<partial_shape>{partial_shape{2}, partial_shape(tensor_shape{})}},
        {"capacity", int64_t{-1}}, {"container", ""}, {"shared_name", "queue"}}},
      {"ann", "NoOp", "", {"^q"},
       {{"_floats", std::vector<float>{0.5f, -1.25f}}, {"_flags", std::vector<bool>{true}},
        {"_ts", std::vector<tensor>{tensor::scalar<int32_t>(3)}}, {"_f", 2.5f}}},
  };
  return g;
}

}  // namespace

TEST_CASE("caflow graph -> TF bytes -> caflow graph is the identity, in every encoding") {
  const graph_def g = example_graph();
  for (graph_encoding e : {graph_encoding::binary, graph_encoding::text, graph_encoding::json}) {
    CAPTURE(tf::graph_encoding_name(e));
    auto bytes = tf::write_graph_def(g, e);
    REQUIRE_MESSAGE(bytes.ok(), bytes.get_status().to_string());
    auto back = tf::read_graph_def(*bytes, e, "round trip");
    REQUIRE_MESSAGE(back.ok(), back.get_status().to_string());
    CHECK(*back == g);
  }
}

TEST_CASE("the binary is TensorFlow's GraphDef: TF names and types, tensors as tensor_content") {
  auto bytes = tf::write_graph_def(example_graph(), graph_encoding::binary);
  REQUIRE(bytes.ok());
  tfproto::GraphDef proto;
  REQUIRE(proto.ParseFromString(*bytes));
  CHECK(proto.versions().producer() == 27);
  REQUIRE(proto.node_size() == 12);
  const auto& k = proto.node(2);
  CHECK(k.name() == "k");
  CHECK(k.op() == "Const");
  CHECK(k.device() == "/job:ps/task:0");
  CHECK(k.attr().at("dtype").type() == tfproto::DT_FLOAT);
  const auto& value = k.attr().at("value").tensor();
  CHECK(value.dtype() == tfproto::DT_FLOAT);
  CHECK(value.tensor_shape().dim_size() == 4);
  CHECK(value.tensor_content().size() == 16);
  CHECK(value.float_val_size() == 0);
  CHECK(proto.node(5).attr().at("value").tensor().tensor_content() == std::string("\1\0\1", 3));
  CHECK(proto.node(1).attr().at("shape").shape().unknown_rank());
  CHECK(proto.node(3).attr().at("_class").list().s(0) == "loc:@k");
  CHECK(proto.node(9).input(1) == "^flags");
  CHECK(proto.node(9).attr().at("squeeze_dims").has_list());
  // The same graph gives the same bytes.
  CHECK(tf::write_graph_def(example_graph(), graph_encoding::binary).value() == *bytes);
}

TEST_CASE("a graph built with the client library runs the same after a trip through TF bytes") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32, {.shape = {-1, 2}});
  auto w = ops::constant(root.with_op_name("w"), std::vector<float>{1, 2, 3, 4}, {2, 2});
  auto y = ops::add(root.with_op_name("y"), ops::mat_mul(root, x, w),
                    ops::constant(root, std::vector<float>{0.5f, -0.5f}, {2}));
  const graph_def built = root.to_graph_def();
  auto bytes = tf::write_graph_def(built, graph_encoding::binary);
  REQUIRE(bytes.ok());
  auto back = tf::read_graph_def(*bytes, graph_encoding::binary, "client graph");
  REQUIRE_MESSAGE(back.ok(), back.get_status().to_string());
  CHECK(*back == built);
  session sess;
  REQUIRE(sess.extend(*back).ok());
  auto out = sess.run_named({{"x", tensor::from_vector<float>({1, 0, 0, 1}, {2, 2})}}, {"y"});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  CHECK(out->at(0) == tensor::from_vector<float>({1.5f, 1.5f, 3.5f, 3.5f}, {2, 2}));
}

TEST_CASE("what cannot be written is an error naming node and attr") {
  graph_def g;
  g.nodes = {{"c", "Const", "", {}, {{"dtype", dtype::float32}, {"value", tensor()}}}};
  CHECK(tf::write_graph_def(g, graph_encoding::binary).get_status().message() ==
        "node 'c' (op Const) attr 'value': tensor is not initialized");
  g.nodes = {{"n", "NoOp", "", {}, {{"_x", attr_value()}}}};
  CHECK(tf::write_graph_def(g, graph_encoding::text).get_status().message() ==
        "node 'n' (op NoOp) attr '_x': attr holds no value");
}
