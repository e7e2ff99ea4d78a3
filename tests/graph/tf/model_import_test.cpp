// import_graph_def: one entry for every model file caflow reads, with the inputs and outputs a
// caller feeds and fetches, whichever encoding the GraphDef came in.
#include <doctest/doctest.h>

#include <fstream>

#include "actors/session/session.hpp"
#include "graph/tf/graph_def_export.hpp"
#include "graph/tf/model_import.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/temp_dir.hpp"
#include "test_util/tfjs_golden.hpp"

using namespace caflow;
using caflow::testing::check_error;

namespace {

const std::string regression = std::string(CAFLOW_SOURCE_DIR "/tests/data/tf/regression.pb");

tf::imported_model import(const std::string& path) {
  auto m = tf::import_graph_def(path);
  REQUIRE_MESSAGE(m.ok(), m.get_status().to_string());
  return std::move(*m);
}

// pred(X = 5) as tensorflow-onnx's tests/test_api.py states it.
void check_regression_runs(const tf::imported_model& m) {
  session sess;
  REQUIRE(sess.extend(m.graph).ok());
  auto out = sess.run_named({{m.inputs[0].name, tensor::from_vector<float>({5.0f})}}, {m.outputs[0].name});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  CHECK(out->at(0).to_vector<float>()[0] == doctest::Approx(2.1193342f).epsilon(1e-6));
}

}  // namespace

TEST_CASE("a frozen graph's inputs are its Placeholders and its outputs its sinks") {
  const tf::imported_model m = import(regression);
  CHECK(m.format == "binary GraphDef");
  CHECK(m.inputs_source == tf::io_source::graph);
  CHECK(m.outputs_source == tf::io_source::graph);
  REQUIRE(m.inputs.size() == 1);
  CHECK(m.inputs[0].node == "X");
  CHECK(m.inputs[0].port == 0);
  CHECK(m.inputs[0].type == dtype::float32);
  REQUIRE(m.outputs.size() == 1);
  CHECK(m.outputs[0].node == "pred");
  check_regression_runs(m);
}

TEST_CASE("the same graph as text and as JSON imports to the same model") {
  caflow::testing::temp_dir dir("caflow_model_import_");
  const tf::imported_model binary = import(regression);
  for (auto [encoding, file, format] : {std::tuple{tf::graph_encoding::text, "g.pbtxt", "text GraphDef"},
                                        std::tuple{tf::graph_encoding::json, "g.json", "json GraphDef"}}) {
    CAPTURE(file);
    auto bytes = tf::write_graph_def(binary.graph, encoding);
    REQUIRE_MESSAGE(bytes.ok(), bytes.get_status().to_string());
    std::ofstream(dir.file(file), std::ios::binary) << *bytes;
    const tf::imported_model m = import(dir.file(file));
    CHECK(m.format == format);
    CHECK(m.graph.nodes.size() == binary.graph.nodes.size());
    REQUIRE(m.inputs.size() == 1);
    CHECK(m.inputs[0].node == "X");
    REQUIRE(m.outputs.size() == 1);
    CHECK(m.outputs[0].node == "pred");
    check_regression_runs(m);
    // The same bytes in memory.
    auto from_bytes = tf::import_graph_def(*bytes, encoding, "in memory");
    REQUIRE(from_bytes.ok());
    CHECK(from_bytes->graph.nodes.size() == binary.graph.nodes.size());
  }
  check_error(tf::import_graph_def(std::string("\x0a\xff", 2), tf::graph_encoding::binary, "in memory"), "in memory");
  check_error(tf::import_graph_def(dir.file("model.onnx")), "model.onnx: unknown GraphDef file extension");
}

TEST_CASE("a TensorFlow.js model.json imports with its signature's inputs and outputs") {
  const auto path = caflow::testing::model_cache() / "human-models" / "mobileface.json";
  CAFLOW_REQUIRE_MODEL(path);
  const tf::imported_model m = import(path.string());
  CHECK(m.format == "TensorFlow.js graph model");
  CHECK(m.inputs_source == tf::io_source::signature);
  REQUIRE(m.inputs.size() == 1);
  CHECK(m.inputs[0].name == "data:0");
  CHECK(m.inputs[0].shape == partial_shape{-1, 112, 112, 3});
  REQUIRE(m.outputs.size() == 1);
  CHECK(m.outputs[0].node == "batchnorm0/add_1");
}
