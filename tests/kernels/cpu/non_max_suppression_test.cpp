// NonMaxSuppressionV3, V4 and V5: greedy selection by score, IOU suppression, thresholds, ties,
// padding and soft-NMS, against values worked out by hand from TensorFlow's definition.
#include <limits>
#include <vector>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;

namespace {

// Three clusters: boxes 0, 1, 2 overlap pairwise with IOU 0.9 / 1.1 = 0.818 (0 with 1 and with
// 2), boxes 3 and 4 likewise, box 5 stands alone.
tensor cluster_boxes() {
  return tensor::from_vector<float>({0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, -0.1f, 1, 0.9f,
                                     0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100, 1, 101},
                                    {6, 4});
}
tensor cluster_scores() {
  return tensor::from_vector<float>({0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f});
}

std::vector<tensor> nms(const std::string& op, std::vector<tensor> inputs,
                        std::map<std::string, attr_value> attrs = {}) {
  auto r = run_kernel(op, inputs, std::move(attrs));
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return *r;
}

std::vector<tensor> v3(const tensor& boxes, const tensor& scores, int32_t max, float iou,
                       float score = -std::numeric_limits<float>::infinity()) {
  return nms("NonMaxSuppressionV3", {boxes, scores, tensor::scalar<int32_t>(max),
                                     tensor::scalar<float>(iou), tensor::scalar<float>(score)});
}

}  // namespace

TEST_CASE("NonMaxSuppressionV3 takes the best box of each cluster, best first") {
  check_tensor(v3(cluster_boxes(), cluster_scores(), 3, 0.5f).at(0), {3},
               std::vector<int32_t>{3, 0, 5});
  check_tensor(v3(cluster_boxes(), cluster_scores(), 2, 0.5f).at(0), {2},
               std::vector<int32_t>{3, 0});
  // An IOU threshold above every overlap suppresses nothing: all six by score.
  check_tensor(v3(cluster_boxes(), cluster_scores(), 10, 0.9f).at(0), {6},
               std::vector<int32_t>{3, 0, 1, 2, 4, 5});
  // score_threshold is strict: 0.3 drops box 5 (0.3) and keeps the rest.
  check_tensor(v3(cluster_boxes(), cluster_scores(), 10, 0.5f, 0.3f).at(0), {2},
               std::vector<int32_t>{3, 0});
  check_tensor(v3(cluster_boxes(), cluster_scores(), 0, 0.5f).at(0), {0},
               std::vector<int32_t>{});
  check_tensor(v3(tensor(dtype::float32, {0, 4}), tensor(dtype::float32, {0}), 5, 0.5f).at(0),
               {0}, std::vector<int32_t>{});
}

TEST_CASE("NMS: ties go to the lower index; corners in either order; empty boxes never overlap") {
  const tensor apart = tensor::from_vector<float>(
      {0, 0, 1, 1, 0, 2, 1, 3, 0, 4, 1, 5, 0, 6, 1, 7}, {4, 4});
  check_tensor(v3(apart, tensor::from_vector<float>({0.5f, 0.7f, 0.5f, 0.7f}), 4, 0.5f).at(0),
               {4}, std::vector<int32_t>{1, 3, 0, 2});
  // Box 0 given as (y2, x2, y1, x1) is the unit square, which box 1 overlaps by 0.818.
  const tensor flipped = tensor::from_vector<float>({1, 1, 0, 0, 0, 0.1f, 1, 1.1f}, {2, 4});
  check_tensor(v3(flipped, tensor::from_vector<float>({0.9f, 0.8f}), 2, 0.5f).at(0), {1},
               std::vector<int32_t>{0});
  // Boxes of no area have IOU 0 with everything, even with themselves.
  const tensor points = tensor::from_vector<float>({0, 0, 0, 0, 0, 0, 0, 0}, {2, 4});
  check_tensor(v3(points, tensor::from_vector<float>({0.9f, 0.8f}), 2, 0.0f).at(0), {2},
               std::vector<int32_t>{0, 1});
  // IOU exactly at the threshold does not suppress (only above it does): a unit square inside
  // a 1x2 box overlaps it by 1 / 2.
  const tensor half = tensor::from_vector<float>({0, 0, 1, 2, 0, 1, 1, 2}, {2, 4});
  check_tensor(v3(half, tensor::from_vector<float>({0.9f, 0.8f}), 2, 0.5f).at(0), {2},
               std::vector<int32_t>{0, 1});
  check_tensor(v3(half, tensor::from_vector<float>({0.9f, 0.8f}), 2, 0.49f).at(0), {1},
               std::vector<int32_t>{0});
}

TEST_CASE("NonMaxSuppressionV4 pads to max_output_size and counts the valid outputs") {
  const std::vector<tensor> in{cluster_boxes(), cluster_scores(), tensor::scalar<int32_t>(6),
                               tensor::scalar<float>(0.5f), tensor::scalar<float>(0.4f)};
  const auto padded = nms("NonMaxSuppressionV4", in, {{"pad_to_max_output_size", true}});
  REQUIRE(padded.size() == 2);
  check_tensor(padded[0], {6}, std::vector<int32_t>{3, 0, 0, 0, 0, 0});
  check_tensor(padded[1], {}, std::vector<int32_t>{2});
  const auto plain = nms("NonMaxSuppressionV4", in);
  check_tensor(plain[0], {2}, std::vector<int32_t>{3, 0});
  check_tensor(plain[1], {}, std::vector<int32_t>{2});
}

TEST_CASE("NonMaxSuppressionV5: hard NMS with scores, and soft-NMS's Gaussian decay") {
  const auto run5 = [](int32_t max, float iou, float score, float sigma, bool pad = false) {
    return nms("NonMaxSuppressionV5",
               {cluster_boxes(), cluster_scores(), tensor::scalar<int32_t>(max),
                tensor::scalar<float>(iou), tensor::scalar<float>(score),
                tensor::scalar<float>(sigma)},
               {{"pad_to_max_output_size", pad}});
  };
  const auto hard = run5(3, 0.5f, 0.0f, 0.0f);
  REQUIRE(hard.size() == 3);
  check_tensor(hard[0], {3}, std::vector<int32_t>{3, 0, 5});
  check_tensor(hard[1], {3}, std::vector<float>{0.95f, 0.9f, 0.3f});
  check_tensor(hard[2], {}, std::vector<int32_t>{3});
  // sigma 0.5: each selected neighbour scales a score by exp(-iou^2 / (2 sigma)) =
  // exp(-0.6694) = 0.512 (box 2 meets both 0 and 1 before it is taken: 0.6 * 0.512 * 0.641;
  // 1 and 2 overlap by 0.8 / 1.2).
  const auto soft = run5(6, 1.0f, 0.0f, 0.5f);
  check_tensor(soft[0], {6}, std::vector<int32_t>{3, 0, 1, 5, 4, 2});
  check_tensor(soft[1], {6},
               std::vector<float>{0.95f, 0.9f, 0.38400352f, 0.3f, 0.25600235f, 0.19697242f});
  check_tensor(soft[2], {}, std::vector<int32_t>{6});
  // A score threshold drops a decayed score below it; padding fills indices and scores with 0.
  const auto cut = run5(8, 1.0f, 0.35f, 0.5f, true);
  check_tensor(cut[0], {8}, std::vector<int32_t>{3, 0, 1, 0, 0, 0, 0, 0});
  check_tensor(cut[1], {8}, std::vector<float>{0.95f, 0.9f, 0.38400352f, 0, 0, 0, 0, 0});
  check_tensor(cut[2], {}, std::vector<int32_t>{3});
}

TEST_CASE("NMS refuses bad shapes and thresholds") {
  check_error(run_kernel("NonMaxSuppressionV3",
                         {tensor(dtype::float32, {3, 3}), tensor(dtype::float32, {3}),
                          tensor::scalar<int32_t>(1), tensor::scalar<float>(0.5f),
                          tensor::scalar<float>(0)}),
              "boxes must be [num_boxes, 4], got shape [3,3]");
  check_error(run_kernel("NonMaxSuppressionV3",
                         {tensor(dtype::float32, {3, 4}), tensor(dtype::float32, {2}),
                          tensor::scalar<int32_t>(1), tensor::scalar<float>(0.5f),
                          tensor::scalar<float>(0)}),
              "scores of shape [2] must hold one score per box of boxes of shape [3,4]");
  const auto with = [](int32_t max, float iou, float sigma) {
    return std::vector<tensor>{cluster_boxes(), cluster_scores(), tensor::scalar<int32_t>(max),
                               tensor::scalar<float>(iou), tensor::scalar<float>(0),
                               tensor::scalar<float>(sigma)};
  };
  check_error(run_kernel("NonMaxSuppressionV5", with(-1, 0.5f, 0)),
              "max_output_size must be non-negative, got -1");
  check_error(run_kernel_unchecked("NonMaxSuppressionV5", with(-1, 0.5f, 0)),
              "max_output_size must be non-negative, got -1");
  check_error(run_kernel("NonMaxSuppressionV5", with(2, 1.5f, 0)),
              "iou_threshold must be in [0, 1], got 1.5");
  check_error(run_kernel("NonMaxSuppressionV5", with(2, 0.5f, -1)),
              "soft_nms_sigma must be non-negative, got -1");
}
