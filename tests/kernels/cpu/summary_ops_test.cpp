// The summary ops (ScalarSummary, HistogramSummary, TensorSummaryV2, TensorSummary,
// MergeSummary): each output decoded with the generated protobuf classes of TensorFlow's
// summary.proto, and TensorFlow's refusals with its messages. Also: string tensors never reach a
// kernel written for fixed-size elements.
#include <doctest/doctest.h>

#include <cmath>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/tf/model_import.hpp"
#include "graph/tf/proto/summary.pb.h"
#include "graph/util/histogram.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;

namespace {

tfproto::Summary decoded(const tensor& t) {
  REQUIRE(t.type() == dtype::string);
  REQUIRE(t.rank() == 0);
  tfproto::Summary s;
  REQUIRE(s.ParseFromString(std::string(t.string_at(0))));
  return s;
}

}  // namespace

TEST_CASE("ScalarSummary: one simple value per tag, any real or integer type") {
  auto out = run_kernel("ScalarSummary", {tensor::from_strings({"loss", "acc"}),
                                          tensor::from_vector<double>({0.25, 0.875})});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  const auto s = decoded(out->at(0));
  REQUIRE(s.value_size() == 2);
  CHECK(s.value(0).tag() == "loss");
  CHECK(s.value(0).simple_value() == 0.25f);
  CHECK(s.value(1).tag() == "acc");
  CHECK(s.value(1).simple_value() == 0.875f);

  auto ints = run_kernel("ScalarSummary", {tensor::string_scalar("step"), tensor::scalar<int64_t>(7)});
  REQUIRE(ints.ok());
  CHECK(decoded(ints->at(0)).value(0).simple_value() == 7.0f);

  check_error(run_kernel_unchecked("ScalarSummary", {tensor::from_strings({"a", "b"}),
                                                     tensor::from_vector<float>({1, 2, 3})}),
              "tags and values not the same shape: [2] != [3]");
}

TEST_CASE("HistogramSummary: TensorFlow's buckets; a NaN or infinity names the tag") {
  const tensor values = tensor::from_vector<float>({-1, 0, 0.5f, 0.5f, 3});
  auto out = run_kernel("HistogramSummary", {tensor::string_scalar("weights"), values});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  const auto s = decoded(out->at(0));
  REQUIRE(s.value_size() == 1);
  CHECK(s.value(0).tag() == "weights");
  const auto& h = s.value(0).histo();
  CHECK(h.num() == 5);
  CHECK(h.min() == -1);
  CHECK(h.max() == 3);
  CHECK(h.sum() == doctest::Approx(3.0));
  CHECK(h.sum_squares() == doctest::Approx(10.5));
  const histogram expected = histogram_of(values);
  REQUIRE(h.bucket_size() == static_cast<int>(expected.bucket.size()));
  for (int i = 0; i < h.bucket_size(); ++i) {
    CHECK(h.bucket(i) == expected.bucket[static_cast<size_t>(i)]);
    CHECK(h.bucket_limit(i) == expected.bucket_limit[static_cast<size_t>(i)]);
  }
  check_error(run_kernel("HistogramSummary", {tensor::string_scalar("w"),
                                              tensor::from_vector<float>({1, NAN})}),
              "Nan in summary histogram for: w");
  check_error(run_kernel("HistogramSummary", {tensor::string_scalar("w"),
                                              tensor::from_vector<double>({INFINITY})}),
              "Nan in summary histogram for: w");
  check_error(run_kernel_unchecked("HistogramSummary", {tensor::from_strings({"a", "b"}),
                                                        tensor::from_vector<float>({1})}),
              "tag must be a scalar string, not string[2]");
}

TEST_CASE("TensorSummaryV2 and TensorSummary carry the tensor itself as a TensorProto") {
  tfproto::SummaryMetadata meta;
  meta.set_display_name("Weights");
  meta.mutable_plugin_data()->set_plugin_name("text");
  auto out = run_kernel("TensorSummaryV2",
                        {tensor::string_scalar("w"), tensor::from_vector<int32_t>({1, -2, 3}, {3, 1}),
                         tensor::string_scalar(meta.SerializeAsString())});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  auto s = decoded(out->at(0));
  REQUIRE(s.value_size() == 1);
  CHECK(s.value(0).tag() == "w");
  CHECK(s.value(0).metadata().display_name() == "Weights");
  CHECK(s.value(0).metadata().plugin_data().plugin_name() == "text");
  const auto& tp = s.value(0).tensor();
  CHECK(tp.dtype() == tfproto::DT_INT32);
  REQUIRE(tp.tensor_shape().dim_size() == 2);
  CHECK(tp.tensor_shape().dim(0).size() == 3);
  CHECK(tp.tensor_shape().dim(1).size() == 1);
  REQUIRE(tp.tensor_content().size() == 12);
  int32_t v[3];
  std::memcpy(v, tp.tensor_content().data(), 12);
  CHECK(v[1] == -2);

  auto text = run_kernel("TensorSummaryV2", {tensor::string_scalar("notes"),
                                             tensor::from_strings({"hello", "world"}),
                                             tensor::string_scalar("")});
  REQUIRE_MESSAGE(text.ok(), text.get_status().to_string());
  s = decoded(text->at(0));
  CHECK(s.value(0).tensor().dtype() == tfproto::DT_STRING);
  REQUIRE(s.value(0).tensor().string_val_size() == 2);
  CHECK(s.value(0).tensor().string_val(1) == "world");
  CHECK_FALSE(s.value(0).has_metadata());

  auto old = run_kernel("TensorSummary", {tensor::from_vector<float>({0.5f})},
                        {{"display_name", std::string("shown")}, {"description", std::string("why")}});
  REQUIRE_MESSAGE(old.ok(), old.get_status().to_string());
  s = decoded(old->at(0));
  CHECK(s.value(0).metadata().display_name() == "shown");
  CHECK(s.value(0).metadata().summary_description() == "why");
  CHECK(s.value(0).tensor().dtype() == tfproto::DT_FLOAT);
}

TEST_CASE("MergeSummary: the union of its inputs' values; a tag twice or bad bytes fail") {
  auto a = run_kernel("ScalarSummary", {tensor::from_strings({"loss", "acc"}),
                                        tensor::from_vector<float>({1, 2})});
  auto b = run_kernel("HistogramSummary", {tensor::string_scalar("w"), tensor::from_vector<float>({1})});
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  auto merged = run_kernel("MergeSummary", {a->at(0), b->at(0)});
  REQUIRE_MESSAGE(merged.ok(), merged.get_status().to_string());
  const auto s = decoded(merged->at(0));
  REQUIRE(s.value_size() == 3);
  CHECK(s.value(0).tag() == "loss");
  CHECK(s.value(1).tag() == "acc");
  CHECK(s.value(2).tag() == "w");
  CHECK(s.value(2).has_histo());

  check_error(run_kernel("MergeSummary", {a->at(0), a->at(0)}),
              "Duplicate tag loss found in summary inputs");
  check_error(run_kernel("MergeSummary", {a->at(0), tensor::string_scalar("\x0a\x05xx")}),
              "Could not parse one of the summary inputs (input 1)");
  // An empty Summary merges as nothing.
  auto with_empty = run_kernel("MergeSummary", {tensor::string_scalar(""), b->at(0)});
  REQUIRE(with_empty.ok());
  CHECK(decoded(with_empty->at(0)).value_size() == 1);
}

TEST_CASE("summaries built with the client ops run in a session beside the step") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto loss = ops::mean(root.with_op_name("loss"), ops::square(root, x), {0});
  auto merged = ops::merge_summary(
      root.with_op_name("summaries"),
      {ops::scalar_summary(root, ops::string_constant(root, "loss"), loss),
       ops::histogram_summary(root, ops::string_constant(root, "x"), x),
       ops::tensor_summary(root, ops::string_constant(root, "first"),
                           ops::string_constant(root, {"a", "b"}, {2}), ops::string_constant(root, ""))});
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
  session sess(root);
  auto out = sess.run({{x, tensor::from_vector<float>({1, 2, 3})}}, {loss, merged});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  const auto s = decoded(out->at(1));
  REQUIRE(s.value_size() == 3);
  CHECK(s.value(0).simple_value() == doctest::Approx(14.0f / 3));
  CHECK(s.value(1).histo().num() == 3);
  CHECK(s.value(2).tensor().string_val(0) == "a");
  // A string fetched and fed back unchanged through Identity.
  auto id = ops::identity(root.with_op_name("same"), merged);
  session again(root);
  auto twice = again.run({{x, tensor::from_vector<float>({1})}}, {id});
  REQUIRE_MESSAGE(twice.ok(), twice.get_status().to_string());
  CHECK(decoded(twice->at(0)).value_size() == 3);
}

TEST_CASE("a string tensor never reaches a kernel written for fixed-size elements") {
  auto root = scope::new_root();
  auto a = ops::string_constant(root, {"x", "y"}, {2});
  auto doubled = ops::concat(root.with_op_name("both"), {a, a}, 0);
  REQUIRE(root.ok());
  session sess(root);
  auto out = sess.run({doubled});
  REQUIRE_FALSE(out.ok());
  CHECK_MESSAGE(out.get_status().message().find("both") != std::string::npos,
                out.get_status().message());
  CHECK_MESSAGE(out.get_status().message().find("string") != std::string::npos,
                out.get_status().message());
}

TEST_CASE("a TensorFlow GraphDef with summary ops and string constants imports and runs") {
  // What tf.compat.v1.summary.scalar("loss", x) and .histogram("x", x) then merge_all write.
  const std::string pbtxt = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "loss/tags" op: "Const"
       attr { key: "dtype" value { type: DT_STRING } }
       attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape {} string_val: "loss" } } } }
node { name: "Mean/axis" op: "Const"
       attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 0 } } } }
node { name: "Mean" op: "Mean" input: "x" input: "Mean/axis" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "loss" op: "ScalarSummary" input: "loss/tags" input: "Mean"
       attr { key: "T" value { type: DT_FLOAT } } }
node { name: "x_1/tag" op: "Const"
       attr { key: "dtype" value { type: DT_STRING } }
       attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape {} string_val: "x" } } } }
node { name: "x_1" op: "HistogramSummary" input: "x_1/tag" input: "x"
       attr { key: "T" value { type: DT_FLOAT } } }
node { name: "Merge/MergeSummary" op: "MergeSummary" input: "loss" input: "x_1"
       attr { key: "N" value { i: 2 } } }
)";
  auto model = tf::import_graph_def(pbtxt, tf::graph_encoding::text, "summaries.pbtxt");
  REQUIRE_MESSAGE(model.ok(), model.get_status().to_string());
  session sess;
  REQUIRE(sess.extend(model->graph).ok());
  auto out = sess.run_named({{"x", tensor::from_vector<float>({1, 2, 6})}}, {"Merge/MergeSummary"});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  const auto s = decoded(out->at(0));
  REQUIRE(s.value_size() == 2);
  CHECK(s.value(0).tag() == "loss");
  CHECK(s.value(0).simple_value() == 3.0f);
  CHECK(s.value(1).tag() == "x");
  CHECK(s.value(1).histo().max() == 6);
}
