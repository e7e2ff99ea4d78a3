// save_saved_model: a frozen graph written as a TF1 SavedModel that the loader reads back with
// the same signature and outputs; a graph with variables is refused.
#include <doctest/doctest.h>

#include <filesystem>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/client/train/variables.hpp"
#include "graph/tf/saved_model.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/temp_dir.hpp"
#include "test_util/tfjs_golden.hpp"

using namespace caflow;
using caflow::testing::check_error;
namespace fs = std::filesystem;

namespace {

tensor run(const tf::imported_model& m, const tensor& x) {
  session sess;
  REQUIRE(sess.extend(m.graph).ok());
  auto out = sess.run_named({{m.inputs[0].node + ":0", x}}, {m.outputs[0].node + ":0"});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return out->at(0);
}

}  // namespace

TEST_CASE("a frozen GraphDef saved as a SavedModel loads back with its signature") {
  caflow::testing::temp_dir dir("caflow_saved_model_w_");
  auto model = tf::import_graph_def(std::string(CAFLOW_SOURCE_DIR) + "/tests/data/tf/regression.pb");
  REQUIRE(model.ok());
  const std::string version = dir.file("regression/1");
  REQUIRE_MESSAGE(tf::save_saved_model(version, *model).ok(), "save failed");
  CHECK(fs::exists(version + "/saved_model.pb"));
  CHECK(fs::exists(version + "/variables/variables.index"));
  auto loaded = tf::load_saved_model(version);
  REQUIRE_MESSAGE(loaded.ok(), loaded.get_status().to_string());
  CHECK(loaded->signature == "serving_default");
  REQUIRE(loaded->signatures.size() == 1);
  REQUIRE(loaded->signatures[0].inputs.size() == 1);
  CHECK(loaded->signatures[0].inputs[0].key == "X");
  CHECK(loaded->signatures[0].inputs[0].tensor.type == dtype::float32);
  REQUIRE(loaded->signatures[0].outputs.size() == 1);
  CHECK(loaded->signatures[0].outputs[0].key == "pred");
  CHECK(loaded->signatures[0].outputs[0].tensor.type == dtype::float32);  // inferred from its op
  CHECK(loaded->tags == std::vector<std::string>{"serve"});
  // tensorflow-onnx states pred(X = 5) = 2.1193342.
  CHECK(run(loaded->model, tensor::from_vector<float>({5}, {1})).to_vector<float>()[0] ==
        doctest::Approx(2.1193342f).epsilon(1e-6));
}

TEST_CASE("MobileFaceNet through a SavedModel computes what the TF.js model does, bit for bit") {
  const auto path = caflow::testing::model_cache() / "human-models" / "mobileface.json";
  CAFLOW_REQUIRE_MODEL(path);
  caflow::testing::temp_dir dir("caflow_saved_model_mf_");
  auto model = tf::import_graph_def(path.string());
  REQUIRE(model.ok());
  REQUIRE(tf::save_saved_model(dir.file("1"), *model).ok());
  auto loaded = tf::load_saved_model(dir.file("1"));
  REQUIRE_MESSAGE(loaded.ok(), loaded.get_status().to_string());
  const tensor x = caflow::testing::input_pattern({1, 112, 112, 3});
  CHECK(run(loaded->model, x) == run(*model, x));
}

TEST_CASE("a graph with variables is refused by name") {
  auto root = scope::new_root();
  auto w = train::create_variable(root, "w", ops::constant(root, 1.0f));
  tf::imported_model m;
  m.graph = root.to_graph_def();
  m.outputs = tf::graph_outputs(m.graph);
  caflow::testing::temp_dir dir("caflow_saved_model_v_");
  check_error(tf::save_saved_model(dir.file("1"), m), "node 'w' is a variable");
}
