// save_saved_model: a frozen graph, or a graph with variables and their values, written as a
// TF1 SavedModel that the loader reads back with the same signature and outputs; the variables
// with TensorFlow's Saver subgraph and SaverDef, and a tensor bundle.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/client/train/variables.hpp"
#include "graph/tf/proto/saved_model.pb.h"
#include "graph/tf/saved_model.hpp"
#include "graph/tf/tensor_bundle.hpp"
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
  auto model = tf::import_graph_def(std::string(CAFLOW_SOURCE_DIR "/tests/data/tf/regression.pb"));
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

TEST_CASE("a graph with variables is saved with TF's saver and loads back with their values") {
  // half_plus_two as a C++ graph: y = a * x + b with variables a and b.
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32, {.shape = partial_shape{-1}});
  auto a = train::create_variable(root, "a", ops::constant(root, 0.0f));
  auto b = train::create_variable(root, "b", ops::constant(root, 0.0f));
  auto y = ops::add(root.with_op_name("y"), ops::mul(root, x, a), b);
  auto set = train::global_variables_initializer(root, train::variable_set{a, b});
  auto set_a = ops::assign(root, a, ops::constant(root, 0.5f));
  auto set_b = ops::assign(root, b, ops::constant(root, 2.0f));
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
  session sess(root);
  REQUIRE(sess.run({}, {}, {set}).ok());
  auto values = sess.run({set_a, set_b});  // trained values, not the initial ones
  REQUIRE_MESSAGE(values.ok(), values.get_status().to_string());

  tf::imported_model m;
  m.graph = root.to_graph_def();
  m.inputs = {{"x:0", "x", 0, dtype::float32, partial_shape{-1}}};
  m.outputs = {{"y:0", "y", 0, dtype::float32, partial_shape{-1}}};
  caflow::testing::temp_dir dir("caflow_saved_model_v_");
  const std::string version = dir.file("half_plus_two/1");
  const status saved = tf::save_saved_model(version, m, {{"a", values->at(0)}, {"b", values->at(1)}});
  REQUIRE_MESSAGE(saved.ok(), saved.to_string());

  // TensorFlow's reading: the Saver's nodes in TF's own signatures, and the SaverDef naming them.
  tfproto::SavedModel proto;
  {
    std::ifstream f(version + "/saved_model.pb", std::ios::binary);
    REQUIRE(proto.ParseFromIstream(&f));
  }
  const auto& meta = proto.meta_graphs(0);
  CHECK(meta.saver_def().filename_tensor_name() == "save/Const:0");
  CHECK(meta.saver_def().restore_op_name() == "save/restore_all");
  CHECK(meta.saver_def().version() == tfproto::SaverDef::V2);
  std::map<std::string, const tfproto::NodeDef*> nodes;
  for (const auto& n : meta.graph_def().node()) nodes[n.name()] = &n;
  REQUIRE(nodes.count("save/RestoreV2"));
  const auto& restore = *nodes["save/RestoreV2"];
  REQUIRE(restore.input_size() == 3);
  CHECK(restore.input(0) == "save/Const");
  const auto& names = nodes["save/RestoreV2/tensor_names"]->attr().at("value").tensor();
  CHECK(names.dtype() == tfproto::DT_STRING);
  REQUIRE(names.string_val_size() == 2);
  CHECK(names.string_val(0) == "a");
  CHECK(names.string_val(1) == "b");
  CHECK(nodes["save/SaveV2"]->input_size() == 5);
  REQUIRE(nodes.count("save/Assign_1"));
  CHECK(nodes["save/Assign_1"]->input(0) == "b");
  CHECK(nodes["save/Assign_1"]->input(1) == "save/RestoreV2:1");
  CHECK(nodes["save/restore_all"]->input_size() == 2);
  // The bundle holds the trained values under the variables' names.
  auto bundle = tf::bundle_reader::open(version + "/variables/variables");
  REQUIRE_MESSAGE(bundle.ok(), bundle.get_status().to_string());
  CHECK(bundle->read("a")->scalar_value<float>() == 0.5f);
  CHECK(bundle->read("b")->scalar_value<float>() == 2.0f);

  // caflow's loader: the variables become their saved values; half_plus_two's answers.
  auto loaded = tf::load_saved_model(version);
  REQUIRE_MESSAGE(loaded.ok(), loaded.get_status().to_string());
  CHECK(loaded->variables_restored == 2);
  const tensor out = run(loaded->model, tensor::from_vector<float>({1, 2, 5}));
  CHECK(out.to_vector<float>() == std::vector<float>{2.5f, 3.0f, 4.5f});
}

TEST_CASE("variables without values, or values without variables, are refused by name") {
  auto root = scope::new_root();
  auto w = train::create_variable(root, "w", ops::constant(root, 1.0f));
  tf::imported_model m;
  m.graph = root.to_graph_def();
  m.outputs = tf::graph_outputs(m.graph);
  caflow::testing::temp_dir dir("caflow_saved_model_v_");
  check_error(tf::save_saved_model(dir.file("1"), m), "variable 'w' has no value to save");
  check_error(tf::save_saved_model(dir.file("2"), m, {{"w", tensor::scalar<int32_t>(1)}}),
              "the value of variable 'w' is int32, the variable float32");
  check_error(tf::save_saved_model(dir.file("3"), m,
                                   {{"w", tensor::scalar(1.0f)}, {"v", tensor::scalar(1.0f)}}),
              "a value is given for 'v', which is not a variable of the graph");
  CHECK_FALSE(fs::exists(dir.file("1/saved_model.pb")));
}
