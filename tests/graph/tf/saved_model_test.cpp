// TF1 SavedModels: tensorflow/serving's half_plus_two (tests/data/tf/NOTICE) loads as a frozen
// graph of its default signature and answers what tensorflow/serving says it answers; tags,
// signatures and variables that are not there are errors naming what there is.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "actors/session/session.hpp"
#include "graph/tf/model_import.hpp"
#include "graph/tf/proto/saved_model.pb.h"
#include "graph/tf/saved_model.hpp"
#include "graph/tf/tensor_bundle.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/temp_dir.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::temp_dir;

namespace {

namespace fs = std::filesystem;

const std::string half_plus_two = std::string(CAFLOW_SOURCE_DIR "/tests/data/tf/saved_model_half_plus_two");

tf::saved_model load(const std::string& dir, const tf::saved_model_options& options = {}) {
  auto m = tf::load_saved_model(dir, options);
  REQUIRE_MESSAGE(m.ok(), m.get_status().to_string());
  return std::move(*m);
}

// The model's one output for the model's one input holding `x` as a [n, 1] batch.
std::vector<float> run(const tf::imported_model& m, const std::vector<float>& x) {
  REQUIRE(m.inputs.size() == 1);
  REQUIRE(m.outputs.size() == 1);
  session sess;
  const status extended = sess.extend(m.graph);
  REQUIRE_MESSAGE(extended.ok(), extended.to_string());
  const tensor in = tensor::from_vector<float>(x, tensor_shape{static_cast<int64_t>(x.size()), 1});
  auto out = sess.run_named({{m.inputs[0].name, in}}, {m.outputs[0].name});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  REQUIRE(out->at(0).shape() == tensor_shape{static_cast<int64_t>(x.size()), 1});
  return out->at(0).to_vector<float>();
}

// A copy of half_plus_two to break.
void copy_model(const fs::path& to) {
  fs::copy(half_plus_two, to, fs::copy_options::recursive);
}

namespace tfp = ::caflow::tfproto;

tfp::NodeDef* add_node(tfp::GraphDef* g, const std::string& name, const std::string& op,
                       std::vector<std::string> inputs = {}) {
  tfp::NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  for (auto& in : inputs) n->add_input(std::move(in));
  return n;
}

void set_type(tfp::NodeDef* n, const std::string& attr, tfp::DataType t) {
  (*n->mutable_attr())[attr].set_type(t);
}

}  // namespace

TEST_CASE("half_plus_two loads as its serving_default signature, variables frozen") {
  const tf::saved_model sm = load(half_plus_two);
  CHECK(sm.tags == std::vector<std::string>{"serve"});
  CHECK(sm.tensorflow_version == "1.14.0");
  CHECK(sm.signature == "serving_default");
  std::vector<std::string> keys;
  for (const auto& s : sm.signatures) keys.push_back(s.key);
  CHECK(keys == std::vector<std::string>{"classify_x_to_y", "regress_x2_to_y3", "regress_x_to_y",
                                         "regress_x_to_y2", "serving_default"});
  const tf::signature_info& serving = sm.signatures.back();
  CHECK(serving.method_name == "tensorflow/serving/predict");
  REQUIRE(serving.inputs.size() == 1);
  CHECK(serving.inputs[0].key == "x");
  CHECK(serving.inputs[0].tensor.name == "x:0");
  CHECK(serving.inputs[0].tensor.type == dtype::float32);
  CHECK(serving.inputs[0].tensor.shape == partial_shape{-1, 1});
  REQUIRE(serving.outputs.size() == 1);
  CHECK(serving.outputs[0].key == "y");
  CHECK(serving.outputs[0].tensor.name == "y:0");
  // classify_x_to_y feeds serialized tf.Example strings.
  CHECK(sm.signatures.front().inputs[0].tensor.type == dtype::string);

  const tf::imported_model& m = sm.model;
  CHECK(m.format == "TF1 SavedModel");
  CHECK(m.inputs_source == tf::io_source::signature);
  REQUIRE(m.inputs.size() == 1);
  CHECK(m.inputs[0].node == "x");
  CHECK(m.inputs[0].shape == partial_shape{-1, 1});
  REQUIRE(m.outputs.size() == 1);
  CHECK(m.outputs[0].node == "y");
  CHECK(sm.variables_restored == 2);  // a and b; a2, c, c2 serve other signatures

  // Only what y needs from x: the saver, the initializers, tf.Example parsing are gone.
  std::set<std::string> names, ops;
  for (const node_def& n : m.graph.nodes) {
    names.insert(n.name);
    ops.insert(n.op);
  }
  CHECK(names == std::set<std::string>{"a", "a/read", "b", "b/read", "x", "Mul", "Add", "y"});
  CHECK(ops == std::set<std::string>{"Const", "Identity", "Placeholder", "Mul", "Add"});
  for (const node_def& n : m.graph.nodes)
    if (n.name == "a") CHECK(n.attrs.at("value").get<tensor>().to_vector<float>()[0] == 0.5f);
}

TEST_CASE("half_plus_two answers 2.5, 3, 4.5 for x = 1, 2, 5 in a caflow session") {
  const tf::saved_model sm = load(half_plus_two);
  CHECK(run(sm.model, {1.0f, 2.0f, 5.0f}) == std::vector<float>{2.5f, 3.0f, 4.5f});
}

TEST_CASE("import_graph_def takes the SavedModel folder, or its saved_model.pb") {
  for (const std::string& path : {half_plus_two, half_plus_two + "/saved_model.pb"}) {
    CAPTURE(path);
    auto m = tf::import_graph_def(path);
    REQUIRE_MESSAGE(m.ok(), m.get_status().to_string());
    CHECK(m->format == "TF1 SavedModel");
    CHECK(run(*m, {1.0f, 2.0f, 5.0f}) == std::vector<float>{2.5f, 3.0f, 4.5f});
  }
}

TEST_CASE("another signature builds its own graph: y3 = a2 * x2 + c2") {
  tf::saved_model_options options;
  options.signature = "regress_x2_to_y3";
  const tf::saved_model sm = load(half_plus_two, options);
  CHECK(sm.signature == "regress_x2_to_y3");
  CHECK(sm.variables_restored == 2);
  CHECK(run(sm.model, {1.0f, 2.0f, 5.0f}) == std::vector<float>{3.5f, 4.0f, 5.5f});
}

TEST_CASE("the variables come from the checkpoint, not from their initializers") {
  temp_dir dir("caflow_saved_model_ckpt_");
  const fs::path model = dir.path / "m";
  copy_model(model);
  const std::string prefix = (model / "variables" / "variables").string();
  REQUIRE(tf::write_bundle(prefix, {{"a", tensor::scalar<float>(3.0f)},
                                    {"b", tensor::scalar<float>(1.0f)}}).ok());
  CHECK(run(load(model.string()).model, {1.0f, 2.0f, 5.0f}) == std::vector<float>{4.0f, 7.0f, 16.0f});

  // regress_x2_to_y3 needs a2 and c2, which this checkpoint lacks.
  tf::saved_model_options options;
  options.signature = "regress_x2_to_y3";
  auto missing = tf::load_saved_model(model.string(), options);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.get_status().code() == error_code::not_found);
  check_error(missing, "variable 'a2' (VariableV2)");
  check_error(missing, prefix + ".index has no tensor 'a2'");
}

TEST_CASE("tags no meta graph has: an error listing the tag sets there are") {
  tf::saved_model_options options;
  options.tags = {"serve", "gpu"};
  auto m = tf::load_saved_model(half_plus_two, options);
  REQUIRE_FALSE(m.ok());
  CHECK(m.get_status().code() == error_code::not_found);
  check_error(m, half_plus_two + "/saved_model.pb: no meta graph has the tags {gpu, serve}");
  check_error(m, "the tag sets there are {serve}");
}

TEST_CASE("a signature that is not there, or that needs ops caflow lacks, is an error naming it") {
  tf::saved_model_options options;
  options.signature = "predict";
  auto none = tf::load_saved_model(half_plus_two, options);
  REQUIRE_FALSE(none.ok());
  CHECK(none.get_status().code() == error_code::not_found);
  check_error(none, "no signature 'predict'");
  check_error(none, "'regress_x2_to_y3', 'regress_x_to_y'");

  options.signature = "regress_x_to_y";
  auto strings = tf::load_saved_model(half_plus_two, options);
  REQUIRE_FALSE(strings.ok());
  // Its input is serialized tf.Example strings, which the graph parses with ParseExample.
  CHECK(strings.get_status().code() == error_code::unimplemented);
  check_error(strings, "caflow lacks 1 op the graph uses: ParseExample (node 'ParseExample/ParseExample')");
}

TEST_CASE("a missing variables file is NOT_FOUND naming it") {
  temp_dir dir("caflow_saved_model_vars_");
  const fs::path model = dir.path / "m";
  copy_model(model);
  const fs::path index = model / "variables" / "variables.index";
  const fs::path data = model / "variables" / "variables.data-00000-of-00001";

  fs::remove(data);
  auto no_data = tf::load_saved_model(model.string());
  REQUIRE_FALSE(no_data.ok());
  CHECK(no_data.get_status().code() == error_code::not_found);
  check_error(no_data, data.string());

  fs::remove(index);
  auto no_index = tf::load_saved_model(model.string());
  REQUIRE_FALSE(no_index.ok());
  CHECK(no_index.get_status().code() == error_code::not_found);
  check_error(no_index, index.string());
  check_error(no_index, "variable 'a'");
}

TEST_CASE("a damaged saved_model.pb is an error naming the file and the field") {
  temp_dir dir("caflow_saved_model_pb_");
  const fs::path model = dir.path / "m";
  copy_model(model);
  const fs::path pb = model / "saved_model.pb";
  std::string bytes;
  {
    std::ifstream in(pb, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  REQUIRE(bytes.size() > 1000);
  bytes.resize(bytes.size() / 2);
  {
    std::ofstream out(pb, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  auto m = tf::load_saved_model(model.string());
  REQUIRE_FALSE(m.ok());
  check_error(m, pb.string() + ": meta_graphs[0]");

  auto none = tf::load_saved_model((dir.path / "nothing").string());
  REQUIRE_FALSE(none.ok());
  CHECK(none.get_status().code() == error_code::not_found);
  check_error(none, "nothing/saved_model.pb");
}

TEST_CASE("a resource variable: VarHandleOp becomes a Const, its ReadVariableOp an Identity") {
  // y = x * w with w a resource variable, its initializer and a saver beside it, as TensorFlow
  // 1.x writes them with use_resource=True; the saver's ops are ones caflow lacks.
  tfp::SavedModel sm;
  tfp::MetaGraphDef* mg = sm.add_meta_graphs();
  mg->mutable_meta_info_def()->add_tags("serve");
  tfp::GraphDef* g = mg->mutable_graph_def();
  tfp::NodeDef* x = add_node(g, "x", "Placeholder");
  set_type(x, "dtype", tfp::DT_FLOAT);
  tfp::NodeDef* w = add_node(g, "w", "VarHandleOp");
  set_type(w, "dtype", tfp::DT_FLOAT);
  (*w->mutable_attr())["shape"].mutable_shape();
  (*w->mutable_attr())["shared_name"].set_s("w");
  tfp::NodeDef* init_value = add_node(g, "w/Initializer/Const", "Const");
  set_type(init_value, "dtype", tfp::DT_FLOAT);
  tfp::TensorProto* v = (*init_value->mutable_attr())["value"].mutable_tensor();
  v->set_dtype(tfp::DT_FLOAT);
  v->add_float_val(-1.0f);
  set_type(add_node(g, "w/Assign", "AssignVariableOp", {"w", "w/Initializer/Const"}), "dtype", tfp::DT_FLOAT);
  set_type(add_node(g, "w/Read", "ReadVariableOp", {"w"}), "dtype", tfp::DT_FLOAT);
  tfp::NodeDef* y = add_node(g, "y", "Mul", {"x", "w/Read"});
  set_type(y, "T", tfp::DT_FLOAT);
  // Colocated with the initializer, which freezing drops: the placer must not go looking for it.
  (*y->mutable_attr())["_class"].mutable_list()->add_s("loc:@w/Assign");
  tfp::NodeDef* names = add_node(g, "save/tensor_names", "Const");
  set_type(names, "dtype", tfp::DT_STRING);
  add_node(g, "save/SaveV2", "SaveV2", {"save/tensor_names", "w/Read"});
  tfp::SignatureDef& sig = (*mg->mutable_signature_def())["serving_default"];
  (*sig.mutable_inputs())["x"].set_name("x:0");
  (*sig.mutable_inputs())["x"].set_dtype(tfp::DT_FLOAT);
  (*sig.mutable_outputs())["y"].set_name("y:0");
  (*sig.mutable_outputs())["y"].set_dtype(tfp::DT_FLOAT);

  temp_dir dir("caflow_saved_model_res_");
  {
    std::ofstream out(dir.file("saved_model.pb"), std::ios::binary);
    REQUIRE(sm.SerializeToOstream(&out));
  }
  REQUIRE(tf::write_bundle(dir.file("variables/variables"), {{"w", tensor::scalar<float>(4.0f)}}).ok());
  const tf::saved_model m = load(dir.path.string());
  CHECK(m.variables_restored == 1);
  std::map<std::string, std::string> ops;
  for (const node_def& n : m.model.graph.nodes) ops[n.name] = n.op;
  CHECK(ops == std::map<std::string, std::string>{
                   {"x", "Placeholder"}, {"w", "Const"}, {"w/Read", "Identity"}, {"y", "Mul"}});
  for (const node_def& n : m.model.graph.nodes) CHECK_FALSE(n.attrs.count("_class"));
  CHECK(run(m.model, {1.0f, 2.0f, 5.0f}) == std::vector<float>{4.0f, 8.0f, 20.0f});
}
