// caflow-run: its pieces (feeds from .npy files or the pattern, placement rules, the report) and
// the binary on a real TensorFlow frozen graph (tests/data/tf) and a real TF.js model, checked
// against TensorFlow's stated outputs and TF.js's goldens.
#include <doctest/doctest.h>

#include "apps/run/model_inputs.hpp"
#include "apps/run/placement_rules.hpp"
#include "apps/run/run_report.hpp"
#include "graph/tf/npy.hpp"
#include "test_util/caflow_run.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/temp_dir.hpp"
#include "test_util/tfjs_golden.hpp"

using namespace caflow;
using namespace caflow::run_app;
using caflow::testing::caflow_run;
using caflow::testing::check_error;
using caflow::testing::temp_dir;

namespace {

const std::string regression = std::string(CAFLOW_SOURCE_DIR "/tests/data/tf/regression.pb");

bool contains(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

// A model with one input "x" of `shape` (partial) feeding a Neg.
tf::imported_model one_input(partial_shape shape, dtype type = dtype::float32) {
  tf::imported_model m;
  m.graph.nodes.push_back({"x", "Placeholder", "", {}, {{"dtype", type}, {"shape", shape}}});
  m.graph.nodes.push_back({"y", "Neg", "", {"x"}, {{"T", type}}});
  m.inputs = tf::graph_inputs(m.graph);
  m.outputs = tf::graph_outputs(m.graph);
  return m;
}

}  // namespace

TEST_CASE("the pattern is the one caflow's TF.js goldens feed") {
  const tensor f = input_pattern(dtype::float32, {2, 3});
  CHECK(f.to_vector<float>() == std::vector<float>{-0.5f, 0.419f, 0.338f, 0.257f, 0.176f, 0.095f});
  CHECK(input_pattern(dtype::int32, {3}).to_vector<int32_t>() == std::vector<int32_t>{0, 919, 838});
  CHECK(input_pattern(dtype::boolean, {3}).to_vector<bool>() == std::vector<bool>{false, true, false});
}

TEST_CASE("feeds: the pattern at --batch, files by input name, and errors naming the input") {
  temp_dir dir("caflow_run_feeds_");
  std::vector<std::string> notes;
  SUBCASE("an unknown leading dimension takes --batch") {
    auto m = one_input({-1, 4});
    auto feeds = make_feeds(&m, {.batch = 8}, &notes);
    REQUIRE_MESSAGE(feeds.ok(), feeds.get_status().to_string());
    REQUIRE(feeds->size() == 1);
    CHECK(feeds->at(0).first == "x:0");
    CHECK(feeds->at(0).second.shape() == tensor_shape{8, 4});
    CHECK(notes.empty());
  }
  SUBCASE("a fixed leading dimension is relaxed for another --batch, and the note says so") {
    auto m = one_input({1, 4});
    auto feeds = make_feeds(&m, {.batch = 32}, &notes);
    REQUIRE(feeds.ok());
    CHECK(feeds->at(0).second.shape() == tensor_shape{32, 4});
    REQUIRE(notes.size() == 1);
    CHECK(contains(notes[0], "input 'x' fixes its leading dimension at 1; run with it relaxed to --batch 32"));
    CHECK(m.graph.nodes[0].attrs.at("shape").get<partial_shape>() == partial_shape{-1, 4});
  }
  SUBCASE("--shape gives a pattern input's whole shape") {
    auto m = one_input({-1, -1, 3});
    auto feeds = make_feeds(&m, {.shapes = {"x=2,5,3"}, .batch = 7}, &notes);
    REQUIRE_MESSAGE(feeds.ok(), feeds.get_status().to_string());
    CHECK(feeds->at(0).second.shape() == tensor_shape{2, 5, 3});
  }
  SUBCASE("a file feeds the input it names") {
    const tensor t = tensor::from_vector<float>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 4});
    REQUIRE(tf::write_npy(dir.file("x.npy"), t).ok());
    auto m = one_input({-1, 4});
    auto feeds = make_feeds(&m, {.files = {"x=" + dir.file("x.npy")}}, &notes);
    REQUIRE_MESSAGE(feeds.ok(), feeds.get_status().to_string());
    CHECK(feeds->at(0).second == t);
  }
  SUBCASE("errors") {
    auto m = one_input({-1, 4});
    check_error(make_feeds(&m, {.files = {"z=a.npy"}}, &notes), "--input 'z=a.npy': the model has no input 'z' (its inputs: x)");
    check_error(make_feeds(&m, {.files = {"x"}}, &notes), "--input 'x': expected NAME=FILE.npy");
    check_error(make_feeds(&m, {.files = {"x=a.npy", "x:0=b.npy"}}, &notes), "input 'x:0' is given twice");
    REQUIRE(tf::write_npy(dir.file("i.npy"), tensor::from_vector<int32_t>({1, 2, 3, 4}, {1, 4})).ok());
    check_error(make_feeds(&m, {.files = {"x=" + dir.file("i.npy")}}, &notes), "input 'x' is float32, " + dir.file("i.npy") + " holds int32");
    REQUIRE(tf::write_npy(dir.file("s.npy"), tensor::from_vector<float>({1, 2, 3}, {1, 3})).ok());
    check_error(make_feeds(&m, {.files = {"x=" + dir.file("s.npy")}}, &notes), "input 'x' has shape [?,4], " + dir.file("s.npy") + " holds [1,3]");
    auto unknown_inner = one_input({-1, -1});
    check_error(make_feeds(&unknown_inner, {.batch = 0}, &notes),
                "input 'x' has shape [?,?]: dimension 1 is unknown; feed it with --input x=FILE.npy "
                "or give --shape x=D0,D1,...");
    check_error(make_feeds(&m, {.shapes = {"x=2,5"}}, &notes), "--shape x=2,5: input 'x' has shape [?,4]");
    check_error(make_feeds(&m, {.shapes = {"x=2,-4"}}, &notes), "--shape x=2,-4: '-4' is not a dimension");
    check_error(make_feeds(&m, {.shapes = {"y=2,4"}}, &notes), "--shape 'y=2,4': the model has no input 'y'");
  }
}

TEST_CASE("placement rules: the longest prefix wins, and a rule that places nothing is an error") {
  graph_def g;
  for (const char* name : {"conv1/w", "conv1/bias/add", "conv2/w", "head"}) g.nodes.push_back({name, "NoOp", "", {}, {}});
  auto rules = parse_placement_rules("conv=/job:worker/task:1,conv1/bias=/job:worker/task:0");
  REQUIRE_MESSAGE(rules.ok(), rules.get_status().to_string());
  auto placed = apply_placement_rules(*rules, &g);
  REQUIRE_MESSAGE(placed.ok(), placed.get_status().to_string());
  CHECK(*placed == std::vector<int64_t>{2, 1});
  CHECK(g.nodes[0].device == "/job:worker/task:1");
  CHECK(g.nodes[1].device == "/job:worker/task:0");
  CHECK(g.nodes[2].device == "/job:worker/task:1");
  CHECK(g.nodes[3].device.empty());
  check_error(parse_placement_rules("conv"), "--place 'conv': expected PREFIX=DEVICE");
  check_error(parse_placement_rules("a=/job:worker/task:1,"), "--place '': expected PREFIX=DEVICE");
  check_error(parse_placement_rules("a=/jab:x"), "--place 'a=/jab:x'");
  auto typo = parse_placement_rules("cnov=/job:worker/task:1");
  REQUIRE(typo.ok());
  check_error(apply_placement_rules(*typo, &g), "--place 'cnov=/job:worker/task:1': no node's name starts with 'cnov'");
}

TEST_CASE("the report: summaries, nearest-rank percentiles and file names") {
  CHECK(summarize(tensor::from_vector<float>({1, -2, 4.5f}, {3})) == "float32[3] sum=3.5 min=-2 max=4.5");
  CHECK(summarize(tensor(dtype::float32, tensor_shape{0})) == "float32[0] (empty)");
  std::vector<double> ms;
  for (int i = 100; i >= 1; --i) ms.push_back(i);
  const latency_summary l = summarize_latency(ms);
  CHECK(l.p50_ms == 50);
  CHECK(l.p90_ms == 90);
  CHECK(l.p99_ms == 99);
  CHECK(l.min_ms == 1);
  CHECK(l.mean_ms == doctest::Approx(50.5));
  CHECK(npy_file_name("MobilenetV1/heatmap_2/BiasAdd:0") == "MobilenetV1_heatmap_2_BiasAdd_0.npy");
}

TEST_CASE("caflow-run runs a TensorFlow frozen graph on a .npy input and writes its output") {
  temp_dir dir("caflow_run_bin_");
  REQUIRE(tf::write_npy(dir.file("x.npy"), tensor::from_vector<float>({5.0f}, {1})).ok());
  auto r = caflow_run({regression, "--input", "X=" + dir.file("x.npy"), "--output-dir", dir.file("out"), "--runs", "5"});
  MESSAGE(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.output, "model " + regression + ": binary GraphDef, 8 nodes"));
  CHECK(contains(r.output, "input  X:0 float32[1] sum=5 min=5 max=5"));
  CHECK(contains(r.output, "output pred:0 float32[1] sum=2.1193"));
  CHECK(contains(r.output, "runs 2..5: p50 "));
  // tensorflow-onnx's tests/test_api.py: pred(X = 5) == 2.1193342.
  auto out = tf::read_npy(dir.file("out/pred_0.npy"));
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  REQUIRE(out->shape() == tensor_shape{1});
  CHECK(out->to_vector<float>()[0] == doctest::Approx(2.1193342f).epsilon(1e-6));
}

TEST_CASE("caflow-run runs a TF1 SavedModel folder through its serving signature") {
  const std::string model = std::string(CAFLOW_SOURCE_DIR "/tests/data/tf/saved_model_half_plus_two");
  temp_dir dir("caflow_run_sm_");
  REQUIRE(tf::write_npy(dir.file("x.npy"), tensor::from_vector<float>({1.0f, 2.0f, 5.0f}, {3, 1})).ok());
  auto r = caflow_run({model, "--input", "x=" + dir.file("x.npy"), "--output-dir", dir.file("out")});
  MESSAGE(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.output, "model " + model + ": TF1 SavedModel, 8 nodes"));
  CHECK(contains(r.output, "output y:0 float32[3,1] sum=10 min=2.5 max=4.5"));
  // tensorflow/serving's docs: predictions [2.5, 3.0, 4.5] for instances [1.0, 2.0, 5.0].
  auto out = tf::read_npy(dir.file("out/y_0.npy"));
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  CHECK(out->to_vector<float>() == std::vector<float>{2.5f, 3.0f, 4.5f});
  // The signature fixes x's second dimension at 1.
  auto wrong = caflow_run({model, "--shape", "x=3"});
  CHECK(wrong.exit_code == 1);
  CHECK(contains(wrong.output, "--shape x=3: input 'x:0' has shape [?,1]"));
}

TEST_CASE("caflow-run's errors name the culprit and exit 1") {
  temp_dir dir("caflow_run_err_");
  auto missing = caflow_run({dir.file("none.pb")});
  CHECK(missing.exit_code == 1);
  CHECK(contains(missing.output, "caflow-run: NOT_FOUND: " + dir.file("none.pb") + ": cannot open"));
  auto no_input = caflow_run({regression, "--input", "Y=" + dir.file("y.npy")});
  CHECK(no_input.exit_code == 1);
  CHECK(contains(no_input.output, "the model has no input 'Y' (its inputs: X)"));
  REQUIRE(tf::write_npy(dir.file("x.npy"), tensor::from_vector<float>({5.0f}, {1})).ok());
  const std::string x = "X=" + dir.file("x.npy");
  auto no_rank = caflow_run({regression});
  CHECK(no_rank.exit_code == 1);
  CHECK(contains(no_rank.output, "input 'X' has no known rank; feed it with --input X=FILE.npy"));
  auto given = caflow_run({regression, "--shape", "X=3"});
  CHECK(given.exit_code == 0);
  CHECK(contains(given.output, "input  X:0 float32[3] sum="));
  CHECK(contains(given.output, " min=-0.5 max=0.419\n"));
  auto bad_place = caflow_run({regression, "--input", x, "--place", "nothing=/job:worker/task:1"});
  CHECK(bad_place.exit_code == 1);
  CHECK(contains(bad_place.output, "no node's name starts with 'nothing'"));
  auto bad_fetch = caflow_run({regression, "--input", x, "--output", "nope"});
  CHECK(bad_fetch.exit_code == 1);
  CHECK(contains(bad_fetch.output, "caflow-run: "));
  CHECK(contains(bad_fetch.output, "'nope'"));
}

TEST_CASE("caflow-run on MobileFaceNet (TF.js) matches TF.js's golden output") {
  const auto path = caflow::testing::model_cache() / "human-models" / "mobileface.json";
  CAFLOW_REQUIRE_MODEL(path);
  const auto ref = caflow::testing::read_golden(std::filesystem::path(CAFLOW_SOURCE_DIR) / "tests/data/tfjs/mobileface");
  temp_dir dir("caflow_run_mf_");
  auto r = caflow_run({path.string(), "--output-dir", dir.path.string(), "--threads", "2"});
  MESSAGE(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.output, "TensorFlow.js graph model, 168 nodes"));
  CHECK(contains(r.output, "input  data:0 float32[1,112,112,3]"));
  auto out = tf::read_npy(dir.file(npy_file_name(ref.outputs[0].name + ":0")));
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  const auto c = caflow::testing::compare_to_golden(*out, ref.outputs[0]);
  CHECK_MESSAGE(c.ok, c.why);
}

TEST_CASE("caflow-run runs faceboxes' TF1 while loop over TensorArrays and NMS as TF.js does") {
  const auto path = caflow::testing::model_cache() / "human-models" / "faceboxes.json";
  CAFLOW_REQUIRE_MODEL(path);
  const auto ref = caflow::testing::read_golden(std::filesystem::path(CAFLOW_SOURCE_DIR) / "tests/data/tfjs/faceboxes");
  temp_dir dir("caflow_run_fb_");
  auto r = caflow_run({path.string(), "--shape", "image_tensor=1,128,128,3", "--output-dir", dir.path.string()});
  MESSAGE(r.output);
  REQUIRE(r.exit_code == 0);
  for (const auto& out : ref.outputs) {
    CAPTURE(out.name);
    auto got = tf::read_npy(dir.file(npy_file_name(out.name + ":0")));
    REQUIRE_MESSAGE(got.ok(), got.get_status().to_string());
    if (out.name == "num_boxes") {  // how many boxes survive NMS: TF.js gives int32
      REQUIRE(got->num_elements() == 1);
      double n = 0;
      visit_dtype(got->type(), [&]<class T>() { n = static_cast<double>(got->data<T>()[0]); });
      CHECK(n == out.sum);
      continue;
    }
    const auto c = caflow::testing::compare_to_golden(*got, out);
    CHECK_MESSAGE(c.ok, c.why);
  }
}
