// A graph built with caflow's C++ API, written as a binary GraphDef, read by TensorFlow's own
// tooling and run there: scripts/tfjs_export_check/make_goldens.sh decodes tests/data/tf_export/
// model.pb against TensorFlow's message definitions, converts it to a TF.js graph model and runs
// it on TF.js's CPU backend, storing the outputs beside it. This test checks that caflow still
// writes exactly that file for the graph, and computes what TF.js computed from it.
//
// With CAFLOW_EXPORT_DIR set, the test only writes the .pb and the input there (the script's
// first step).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/tf/graph_def_export.hpp"
#include "graph/tf/model_import.hpp"
#include "graph/tf/npy.hpp"
#include "test_util/tfjs_golden.hpp"

using namespace caflow;
namespace fs = std::filesystem;

namespace {

const fs::path data = fs::path(CAFLOW_SOURCE_DIR) / "tests" / "data" / "tf_export";

// Deterministic weights in [-0.5, 0.5), scaled.
tensor weights(const tensor_shape& shape, int seed, float scale) {
  tensor t = caflow::testing::input_pattern(shape.dim_vector());
  float* x = t.data<float>();
  for (int64_t i = 0; i < t.num_elements(); ++i)
    x[i] = scale * static_cast<float>(((i * 7919 + seed * 104729) % 1000) / 1000.0 - 0.5);
  return t;
}

// A small image classifier touching the ops converted models use most: Conv2D (SAME), BiasAdd,
// Relu, MaxPool, DepthwiseConv2dNative (VALID, stride 2), Relu6, Mean, Reshape, MatMul, Add,
// Tanh, ConcatV2 and Softmax.
graph_def classifier() {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("image"), dtype::float32, {.shape = {-1, 12, 12, 3}});
  auto c1 = ops::conv2d(root.with_op_name("conv1/Conv2D"), x,
                        ops::constant(root.with_op_name("conv1/kernel"), weights({3, 3, 3, 8}, 1, 0.6f)));
  auto b1 = ops::bias_add(root.with_op_name("conv1/BiasAdd"), c1,
                          ops::constant(root.with_op_name("conv1/bias"), weights({8}, 2, 0.2f)));
  auto p1 = ops::max_pool(root.with_op_name("pool1"), ops::relu(root.with_op_name("conv1/Relu"), b1));
  auto d2 = ops::depthwise_conv2d_native(
      root.with_op_name("dw2/depthwise"), p1,
      ops::constant(root.with_op_name("dw2/kernel"), weights({3, 3, 8, 2}, 3, 0.8f)),
      {.strides = {1, 2, 2, 1}, .padding = "VALID"});
  auto r2 = ops::relu6(root.with_op_name("dw2/Relu6"), d2);
  auto gap = ops::mean(root.with_op_name("gap"), r2, {1, 2});
  auto flat = ops::reshape(root.with_op_name("flatten"), r2, std::vector<int64_t>{-1, 2 * 2 * 16});
  auto both = ops::concat(root.with_op_name("features"), {gap, ops::tanh(root.with_op_name("flat_tanh"), flat)}, 1);
  auto logits = ops::add(root.with_op_name("dense/add"),
                         ops::mat_mul(root.with_op_name("dense/MatMul"), both,
                                      ops::constant(root.with_op_name("dense/kernel"), weights({80, 5}, 4, 0.5f))),
                         ops::constant(root.with_op_name("dense/bias"), weights({5}, 5, 0.1f)));
  ops::softmax(root.with_op_name("probabilities"), logits);
  return root.to_graph_def();
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

tensor input() { return caflow::testing::input_pattern({2, 12, 12, 3}); }

}  // namespace

TEST_CASE("a C++ graph written as .pb runs in TensorFlow.js with caflow's outputs") {
  auto pb = tf::write_graph_def(classifier(), tf::graph_encoding::binary);
  REQUIRE_MESSAGE(pb.ok(), pb.get_status().to_string());
  if (const char* dir = std::getenv("CAFLOW_EXPORT_DIR"); dir != nullptr && *dir != '\0') {
    std::ofstream(fs::path(dir) / "model.pb", std::ios::binary) << *pb;
    REQUIRE(tf::write_npy((fs::path(dir) / "image.npy").string(), input()).ok());
    MESSAGE("wrote model.pb and image.npy to " << dir << "; the comparison runs without CAFLOW_EXPORT_DIR");
    return;
  }
  // What TF.js ran is what caflow writes today.
  REQUIRE_MESSAGE(fs::exists(data / "model.pb"), "run scripts/tfjs_export_check/make_goldens.sh");
  CHECK(read_bytes(data / "model.pb") == *pb);

  // The graph as built, and as read back from the file, both compute what TF.js computed from
  // the file: a writer and reader that agree on a wrong reading would pass the second alone.
  auto model = tf::import_graph_def((data / "model.pb").string());
  REQUIRE_MESSAGE(model.ok(), model.get_status().to_string());
  for (const graph_def& g : {classifier(), model->graph}) {
    session sess;
    REQUIRE(sess.extend(g).ok());
    for (const std::string name : {"probabilities", "features"}) {
      CAPTURE(name);
      auto got = sess.run_named({{"image:0", input()}}, {name + ":0"});
      REQUIRE_MESSAGE(got.ok(), got.get_status().to_string());
      auto ref = tf::read_npy((data / "tfjs" / (name + ".npy")).string());
      REQUIRE_MESSAGE(ref.ok(), ref.get_status().to_string());
      REQUIRE(got->at(0).shape() == ref->shape());
      const float* a = got->at(0).data<float>();
      const float* b = ref->data<float>();
      double max_ref = 0, max_err = 0;
      for (int64_t i = 0; i < ref->num_elements(); ++i) {
        max_ref = std::max(max_ref, std::fabs(double{b[i]}));
        max_err = std::max(max_err, std::fabs(double{a[i]} - b[i]));
      }
      MESSAGE(name << ": max |caflow - TF.js| " << max_err << " (max |TF.js| " << max_ref << ")");
      CHECK(max_err <= 1e-4 * max_ref);
    }
  }
}
