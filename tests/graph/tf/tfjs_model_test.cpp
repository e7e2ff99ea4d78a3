// Reading a TF.js graph model (model.json + shards) into a graph_def with its weights, its inputs
// and outputs, and the errors for every way the files can disagree. The models are small ones
// written here; tfjs_models_test.cpp reads real ones.
#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/session/session.hpp"
#include "graph/tf/tfjs_model.hpp"
#include "test_util/temp_dir.hpp"

using namespace caflow;
using namespace caflow::tf;
using json = nlohmann::ordered_json;

namespace {

void write(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

template <class T>
std::string bytes_of(const std::vector<T>& v) {
  return {reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T)};
}

json shape_json(std::vector<int64_t> dims) {
  json d = json::array();
  for (int64_t x : dims) d.push_back({{"size", std::to_string(x)}});
  return {{"dim", d}};
}

// A Const whose value the weights give: dtype and shape, no content.
json const_node(const std::string& name, const char* type, std::vector<int64_t> dims) {
  json tensor = {{"dtype", type}, {"tensorShape", shape_json(dims)}};
  json dtype_attr = {{"type", type}};
  json value_attr = {{"tensor", tensor}};
  json attr = {{"dtype", dtype_attr}, {"value", value_attr}};
  return {{"name", name}, {"op", "Const"}, {"attr", attr}};
}

// x (Placeholder float [?,2]) + w (Const float [2], a weight) = y, and n (Const int32 [3], a
// weight) feeding nothing, so it is a graph sink too.
json small_model() {
  json nodes = json::array();
  nodes.push_back({{"name", "x"}, {"op", "Placeholder"},
                   {"attr", {{"dtype", {{"type", "DT_FLOAT"}}}, {"shape", {{"shape", shape_json({-1, 2})}}}}}});
  nodes.push_back(const_node("w", "DT_FLOAT", {2}));
  nodes.push_back(const_node("n", "DT_INT32", {3}));
  nodes.push_back({{"name", "y"}, {"op", "AddV2"}, {"input", {"x", "w"}},
                   {"attr", {{"T", {{"type", "DT_FLOAT"}}}}}});
  json weights = json::array();
  weights.push_back({{"name", "w"}, {"shape", {2}}, {"dtype", "float32"},
                     {"quantization", {{"dtype", "uint8"}, {"min", -1.0}, {"scale", 0.5}}}});
  weights.push_back({{"name", "n"}, {"shape", {3}}, {"dtype", "int32"}});
  return {{"format", "graph-model"},
          {"generatedBy", "test"},
          {"convertedBy", "hand"},
          {"modelTopology", {{"node", nodes}, {"versions", {{"producer", 1}}}}},
          {"weightsManifest", json::array({{{"paths", {"g1-shard1of2.bin", "g1-shard2of2.bin"}},
                                            {"weights", weights}}})}};
}

// The weights' 14 bytes (w: uint8 {2, 5} -> {0, 1.5}; n: int32 {7, 8, 9}), split over two shards
// in the middle of n.
void write_shards(const caflow::testing::temp_dir& dir) {
  const std::string all = bytes_of(std::vector<uint8_t>{2, 5}) + bytes_of(std::vector<int32_t>{7, 8, 9});
  write(dir.file("g1-shard1of2.bin"), all.substr(0, 5));
  write(dir.file("g1-shard2of2.bin"), all.substr(5));
}

status_or<tfjs_model> read(const caflow::testing::temp_dir& dir, const json& model) {
  write(dir.file("model.json"), model.dump());
  return read_tfjs_model(dir.file("model.json"));
}

std::string error_of(const status_or<tfjs_model>& r) {
  REQUIRE_FALSE(r.ok());
  return r.get_status().message();
}

const node_def& node(const graph_def& g, const std::string& name) {
  for (const node_def& n : g.nodes)
    if (n.name == name) return n;
  FAIL("no node " << name);
  return g.nodes.front();
}

}  // namespace

TEST_CASE("every weight fills its Const node, across shard boundaries, and the graph runs") {
  caflow::testing::temp_dir dir("tfjs_model_");
  write_shards(dir);
  auto m = read(dir, small_model());
  REQUIRE_MESSAGE(m.ok(), m.get_status().to_string());
  CHECK(m->format == "graph-model");
  CHECK(m->generated_by == "test");
  CHECK(m->converted_by == "hand");
  CHECK(m->weight_count == 2);
  CHECK(m->weight_bytes == 14);
  CHECK(node(m->graph, "w").attrs.at("value").get<tensor>().equals(tensor::from_vector<float>({0, 1.5f})));
  CHECK(node(m->graph, "n").attrs.at("value").get<tensor>().equals(tensor::from_vector<int32_t>({7, 8, 9})));

  session sess;
  REQUIRE(sess.extend(m->graph).ok());
  auto y = sess.run_named({{"x", tensor::from_vector<float>({1, 2, 3, 4}, {2, 2})}}, {"y"});
  REQUIRE_MESSAGE(y.ok(), y.get_status().to_string());
  CHECK(y->at(0).equals(tensor::from_vector<float>({1, 3.5f, 3, 5.5f}, {2, 2})));
}

TEST_CASE("without a signature the inputs are the Placeholders and the outputs the graph's sinks") {
  caflow::testing::temp_dir dir("tfjs_model_");
  write_shards(dir);
  auto m = read(dir, small_model());
  REQUIRE_MESSAGE(m.ok(), m.get_status().to_string());
  CHECK(m->inputs_source == io_source::graph);
  CHECK(m->outputs_source == io_source::graph);
  REQUIRE(m->inputs.size() == 1);
  CHECK(m->inputs[0].name == "x");
  CHECK(m->inputs[0].type == dtype::float32);
  CHECK(m->inputs[0].shape == partial_shape{-1, 2});
  REQUIRE(m->outputs.size() == 2);  // in graph order: n feeds nothing either
  CHECK(m->outputs[0].node == "n");
  CHECK(m->outputs[1].node == "y");
  CHECK(m->outputs[1].type == dtype::invalid);
  CHECK(std::string(io_source_name(m->outputs_source)) == "graph");
}

TEST_CASE("a signature gives the inputs and outputs, in its order, with dtypes and shapes") {
  caflow::testing::temp_dir dir("tfjs_model_");
  write_shards(dir);
  json model = small_model();
  model["signature"] = {
      {"inputs", {{"x:0", {{"name", "x:0"}, {"dtype", "DT_FLOAT"}, {"tensorShape", shape_json({-1, 2})}}}}},
      {"outputs", {{"y:0", {{"name", "y:0"}, {"dtype", "DT_FLOAT"}, {"tensorShape", shape_json({-1, 2})}}},
                   {"n:0", {{"name", "n:0"}, {"dtype", "DT_INT32"}, {"tensorShape", {{"unknownRank", true}}}}}}}};
  auto m = read(dir, model);
  REQUIRE_MESSAGE(m.ok(), m.get_status().to_string());
  CHECK(m->inputs_source == io_source::signature);
  REQUIRE(m->inputs.size() == 1);
  CHECK(m->inputs[0].name == "x:0");
  CHECK(m->inputs[0].node == "x");
  CHECK(m->inputs[0].port == 0);
  REQUIRE(m->outputs.size() == 2);
  CHECK(m->outputs[0].node == "y");
  CHECK(m->outputs[0].shape == partial_shape{-1, 2});
  CHECK(m->outputs[1].node == "n");
  CHECK(m->outputs[1].type == dtype::int32);
  CHECK_FALSE(m->outputs[1].shape.rank_known());

  model["signature"]["outputs"]["z:0"] = {{"name", "z:0"}, {"dtype", "DT_FLOAT"}};
  CHECK(error_of(read(dir, model)) ==
        dir.file("model.json") + ": signature.outputs['z:0']: node 'z' is not in modelTopology");
  model["signature"]["outputs"] = json::array();
  CHECK(error_of(read(dir, model)) ==
        dir.file("model.json") + ": signature.outputs: expected an object, got array []");
}

TEST_CASE("missing and short shards are errors naming the file") {
  caflow::testing::temp_dir dir("tfjs_model_");
  write_shards(dir);
  const std::string origin = dir.file("model.json");
  std::filesystem::remove(dir.file("g1-shard2of2.bin"));
  auto missing = read(dir, small_model());
  CHECK(missing.get_status().code() == error_code::not_found);
  CHECK(error_of(missing) == origin + ": weightsManifest[0] shard '" + dir.file("g1-shard2of2.bin") +
                                 "' cannot be opened");

  write(dir.file("g1-shard2of2.bin"), std::string(4, '\0'));
  const std::string msg = error_of(read(dir, small_model()));
  CHECK(msg.find(origin + ": weight 'n' (int32 [3]) needs bytes [2, 2 + 3 x 4) of group 0") == 0);
  CHECK(msg.find("g1-shard1of2.bin: 5 bytes, g1-shard2of2.bin: 4 bytes") != std::string::npos);

  json model = small_model();
  model["weightsManifest"][0]["paths"][1] = "../elsewhere.bin";
  CHECK(error_of(read(dir, model)) ==
        origin + ": weightsManifest[0].paths[1]: '../elsewhere.bin' leaves the model's folder");
}

TEST_CASE("weights and Const nodes must match one to one") {
  caflow::testing::temp_dir dir("tfjs_model_");
  write_shards(dir);
  const std::string origin = dir.file("model.json");

  json ghost = small_model();
  ghost["weightsManifest"][0]["weights"][1]["name"] = "ghost";
  CHECK(error_of(read(dir, ghost)) == origin + ": weight 'ghost' matches no Const node of modelTopology");

  json not_const = small_model();
  not_const["weightsManifest"][0]["weights"][1]["name"] = "y";
  CHECK(error_of(read(dir, not_const)) == origin + ": weight 'y' names a node that is not a Const");

  json lacking = small_model();
  lacking["weightsManifest"][0]["weights"].erase(1);
  write(dir.file("g1-shard2of2.bin"), "");
  write(dir.file("g1-shard1of2.bin"), bytes_of(std::vector<uint8_t>{2, 5}));
  CHECK(error_of(read(dir, lacking)) ==
        origin + ": Const node 'n' has no value, and no weight of weightsManifest gives it one");
  write_shards(dir);

  json wrong_type = small_model();
  wrong_type["weightsManifest"][0]["weights"][1]["dtype"] = "float32";
  CHECK(error_of(read(dir, wrong_type)) == origin + ": weight 'n' is float32 but node 'n' has dtype int32");

  json wrong_shape = small_model();
  wrong_shape["weightsManifest"][0]["weights"][0]["shape"] = {1, 2};
  CHECK(error_of(read(dir, wrong_shape)) == origin + ": weight 'w' has shape [1,2] but node 'w' declares [2]");
}

TEST_CASE("a file that is not a TF.js graph model is refused saying what it is") {
  caflow::testing::temp_dir dir("tfjs_model_");
  const std::string origin = dir.file("model.json");
  CHECK(read_tfjs_model(dir.file("none.json")).get_status().code() == error_code::not_found);
  write(origin, "{\"format\": ");
  CHECK(read_tfjs_model(origin).get_status().message() == origin + ": not valid JSON");
  json layers = {{"format", "layers-model"}, {"modelTopology", {{"class_name", "Sequential"}}}};
  auto r = read(dir, layers);
  CHECK(r.get_status().code() == error_code::unimplemented);
  CHECK(error_of(r) ==
        origin + ": format 'layers-model': caflow reads TF.js graph models (format 'graph-model') only");
  CHECK(error_of(read(dir, json{{"format", 3}})) == origin + ": format: expected a string, got number 3");
  CHECK(error_of(read(dir, json{{"format", "graph-model"}})) == origin + ": missing field 'modelTopology'");
  json bad_weights = small_model();
  bad_weights["weightsManifest"][0]["weights"][0]["shape"] = "2";
  CHECK(error_of(read(dir, bad_weights)) ==
        origin + ": weightsManifest[0].weights[0] ('w').shape: expected an array, got string \"2\"");
}
