// Real TensorFlow 1.x frozen graphs (tests/data/tf, from onnx/tensorflow-onnx's test models; see
// tests/data/tf/NOTICE) import with every node accepted and run in a local session.
#include <doctest/doctest.h>

#include <cmath>
#include <set>

#include <fstream>
#include <iterator>

#include "actors/session/session.hpp"
#include "graph/tf/graph_def_export.hpp"
#include "graph/tf/graph_def_import.hpp"
#include "graph/tf/proto/graph.pb.h"

using namespace caflow;

namespace {

std::string data_file(const std::string& name) {
  return std::string(CAFLOW_SOURCE_DIR "/tests/data/tf/") + name;
}

graph_def import(const std::string& name) {
  auto g = tf::read_graph_def_file(data_file(name));
  REQUIRE_MESSAGE(g.ok(), g.get_status().to_string());
  return *g;
}

std::set<std::string> ops_of(const graph_def& g) {
  std::set<std::string> ops;
  for (const auto& n : g.nodes) ops.insert(n.op);
  return ops;
}

// tensorflow-onnx's get_ramp input: 1, 2, 3, ... in the input's shape.
tensor ramp(const tensor_shape& shape) {
  std::vector<float> v(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i + 1);
  return tensor::from_vector(v, shape);
}

// The outputs for ramp({1, 784}) and keep_prob 1 that tests/data/tf/reference_eval.py computes
// in double precision, independently of caflow.
const std::vector<float> lstm_reference = {2.88863678f, -0.260024952f, -2.25812636f, 6.42912197f,
                                           -0.640279351f, -3.36436639f, -7.45169332f, 8.49096522f,
                                           -6.87912453f, 4.23245842f};
const std::vector<float> gru_reference = {-6.67389564f, 0.432149689f, 2.3498205f, -1.03359077f,
                                          -0.58419669f, -0.598916913f, -2.02064506f, 16.0195857f,
                                          4.84059749f, 0.930824681f};

void check_close(const tensor& got, const std::vector<float>& want) {
  REQUIRE(got.shape() == tensor_shape{1, static_cast<int64_t>(want.size())});
  const auto v = got.to_vector<float>();
  for (size_t k = 0; k < want.size(); ++k) {
    CAPTURE(k);
    CHECK(v[k] == doctest::Approx(want[k]).epsilon(1e-4).scale(1.0));
  }
}

}  // namespace

TEST_CASE("regression: a linear model, with the output tensorflow-onnx states for X = 5") {
  const graph_def g = import("regression.pb");
  CHECK(g.nodes.size() == 8);
  CHECK(ops_of(g) == std::set<std::string>{"Add", "Const", "Identity", "Mul", "Placeholder"});
  session sess;
  REQUIRE(sess.extend(g).ok());
  // tensorflow-onnx's tests/test_api.py: pred(X = 5) == 2.1193342.
  auto out = sess.run_named({{"X", tensor::from_vector<float>({5.0f})}}, {"pred"});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  REQUIRE(out->at(0).shape() == tensor_shape{1});
  CHECK(out->at(0).to_vector<float>()[0] == doctest::Approx(2.1193342f).epsilon(1e-6));
}

TEST_CASE("lstm: a 28-step unrolled LSTM over 784 inputs imports whole and runs") {
  const graph_def g = import("lstm.pb");
  CHECK(g.nodes.size() == 529);
  CHECK(ops_of(g) == std::set<std::string>{"Add", "BiasAdd", "ConcatV2", "Const", "ExpandDims", "Fill",
                                           "Floor", "Identity", "MatMul", "Mul", "Pack", "Placeholder",
                                           "RandomUniform", "RealDiv", "Reshape", "Shape", "Sigmoid",
                                           "Split", "StridedSlice", "Sub", "Tanh", "Unpack"});
  session sess;
  REQUIRE(sess.extend(g).ok());
  // keep_prob 1 makes the dropout an identity, so the output is deterministic.
  auto one = sess.run_named({{"X", ramp({1, 784})}, {"keep_prob", tensor::scalar(1.0f)}}, {"output"});
  REQUIRE_MESSAGE(one.ok(), one.get_status().to_string());
  const tensor& y = one->at(0);
  check_close(y, lstm_reference);
  // A batch of two rows: each row is computed alone.
  std::vector<float> two = ramp({1, 784}).to_vector<float>();
  for (int i = 0; i < 784; ++i) two.push_back(0.5f);
  auto batch = sess.run_named({{"X", tensor::from_vector(two, {2, 784})}, {"keep_prob", tensor::scalar(1.0f)}},
                              {"output"});
  REQUIRE_MESSAGE(batch.ok(), batch.get_status().to_string());
  REQUIRE(batch->at(0).shape() == tensor_shape{2, 10});
  const auto b = batch->at(0).to_vector<float>();
  const auto a = y.to_vector<float>();
  for (int k = 0; k < 10; ++k) CHECK(b[k] == doctest::Approx(a[k]).epsilon(1e-5));
}

TEST_CASE("gru: a 28-step unrolled GRU imports whole and runs") {
  const graph_def g = import("gru.pb");
  CHECK(g.nodes.size() == 548);
  session sess;
  REQUIRE(sess.extend(g).ok());
  auto out = sess.run_named({{"X", ramp({1, 784})}, {"keep_prob", tensor::scalar(1.0f)}}, {"output"});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  check_close(out->at(0), gru_reference);
}

TEST_CASE("every constant of the LSTM reads bit for bit: written back, its tensor_content is TF's") {
  std::ifstream in(data_file("lstm.pb"), std::ios::binary);
  const std::string original{std::istreambuf_iterator<char>(in), {}};
  tfproto::GraphDef tf_graph;
  REQUIRE(tf_graph.ParseFromString(original));
  auto bytes = tf::write_graph_def(import("lstm.pb"), tf::graph_encoding::binary);
  REQUIRE(bytes.ok());
  tfproto::GraphDef written;
  REQUIRE(written.ParseFromString(*bytes));
  REQUIRE(written.node_size() == tf_graph.node_size());
  int with_content = 0;
  for (int k = 0; k < tf_graph.node_size(); ++k) {
    const auto& n = tf_graph.node(k);
    CHECK(written.node(k).name() == n.name());
    if (n.op() != "Const" || n.attr().at("value").tensor().tensor_content().empty()) continue;
    ++with_content;
    CHECK(written.node(k).attr().at("value").tensor().tensor_content() ==
          n.attr().at("value").tensor().tensor_content());
  }
  CHECK(with_content >= 4);  // the kernels and biases, at least
}
