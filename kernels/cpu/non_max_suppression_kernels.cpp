// NonMaxSuppressionV3, V4 and V5 on CPU, with TensorFlow's semantics:
// - candidates are the boxes whose score is strictly above score_threshold, taken greedily in
//   order of score, ties by lower box index;
// - a candidate is compared with the boxes selected since it was last looked at (newest
//   first); IOU (of the boxes' corners in either order, 0 for a box of no area) above
//   iou_threshold suppresses it (hard NMS);
// - with soft_nms_sigma > 0 (V5) nothing is suppressed outright: each comparison scales the
//   score by exp(-0.5 * iou^2 / sigma), and a candidate whose score changed goes back into the
//   queue while still above score_threshold; a candidate is selected when no comparison
//   changed its score;
// - at most max_output_size are selected; with pad_to_max_output_size the outputs are padded
//   with 0 to that length and valid_outputs says how many are real.
#include <algorithm>
#include <cmath>
#include <queue>
#include <vector>

#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

// `boxes` row i: y1, x1, y2, x2 of two opposite corners.
float iou(const float* boxes, int64_t i, int64_t j) {
  const float* a = boxes + 4 * i;
  const float* b = boxes + 4 * j;
  const float a_ymin = std::min(a[0], a[2]), a_ymax = std::max(a[0], a[2]);
  const float a_xmin = std::min(a[1], a[3]), a_xmax = std::max(a[1], a[3]);
  const float b_ymin = std::min(b[0], b[2]), b_ymax = std::max(b[0], b[2]);
  const float b_xmin = std::min(b[1], b[3]), b_xmax = std::max(b[1], b[3]);
  const float area_a = (a_ymax - a_ymin) * (a_xmax - a_xmin);
  const float area_b = (b_ymax - b_ymin) * (b_xmax - b_xmin);
  if (area_a <= 0 || area_b <= 0) return 0.0f;
  const float h = std::max(std::min(a_ymax, b_ymax) - std::max(a_ymin, b_ymin), 0.0f);
  const float w = std::max(std::min(a_xmax, b_xmax) - std::max(a_xmin, b_xmin), 0.0f);
  const float inter = h * w;
  return inter / (area_a + area_b - inter);
}

struct nms_result {
  std::vector<int32_t> indices;
  std::vector<float> scores;
};

nms_result select_boxes(const float* boxes, const float* scores, int64_t num_boxes,
                        int64_t max_output, float iou_threshold, float score_threshold,
                        float sigma) {
  struct candidate {
    int64_t box;
    float score;
    size_t compared;  // selected boxes [0, compared) were already compared with it
  };
  const auto later = [](const candidate& a, const candidate& b) {
    return a.score < b.score || (a.score == b.score && a.box > b.box);
  };
  std::priority_queue<candidate, std::vector<candidate>, decltype(later)> queue(later);
  for (int64_t i = 0; i < num_boxes; ++i)
    if (scores[i] > score_threshold) queue.push({i, scores[i], 0});
  const bool soft = sigma > 0;
  const float scale = soft ? -0.5f / sigma : 0.0f;
  nms_result r;
  while (static_cast<int64_t>(r.indices.size()) < max_output && !queue.empty()) {
    candidate c = queue.top();
    queue.pop();
    const float original = c.score;
    bool suppressed = false;
    for (size_t j = r.indices.size(); j-- > c.compared;) {
      const float overlap = iou(boxes, c.box, r.indices[j]);
      if (!soft && overlap > iou_threshold) {
        suppressed = true;
        break;
      }
      if (soft) c.score *= std::exp(scale * overlap * overlap);
      if (c.score <= score_threshold) break;
    }
    c.compared = r.indices.size();
    if (suppressed) continue;
    if (c.score == original) {
      r.indices.push_back(static_cast<int32_t>(c.box));
      r.scores.push_back(c.score);
    } else if (c.score > score_threshold) {
      queue.push(c);
    }
  }
  return r;
}

// V3: (selected_indices). V4: (selected_indices, valid_outputs). V5: (selected_indices,
// selected_scores, valid_outputs), and the soft_nms_sigma input.
template <int Version>
class non_max_suppression_op final : public op_kernel {
 public:
  explicit non_max_suppression_op(kernel_construction& c) : op_kernel(c) {
    if constexpr (Version >= 4)
      CAFLOW_OP_REQUIRES_OK(c, c.get_attr("pad_to_max_output_size", &pad_));
  }

  void compute(kernel_context& ctx) override {
    const tensor& boxes = ctx.input(0);
    const tensor& scores = ctx.input(1);
    CAFLOW_OP_REQUIRES(ctx, boxes.rank() == 2 && boxes.dim(1) == 4,
                       errors::invalid_argument("boxes must be [num_boxes, 4], got shape ",
                                                boxes.shape().to_string()));
    const int64_t num_boxes = boxes.dim(0);
    CAFLOW_OP_REQUIRES(ctx, scores.rank() == 1 && scores.dim(0) == num_boxes,
                       errors::invalid_argument("scores of shape ", scores.shape().to_string(),
                                                " must hold one score per box of boxes of shape ",
                                                boxes.shape().to_string()));
    static constexpr const char* scalar_names[] = {"max_output_size", "iou_threshold",
                                                   "score_threshold", "soft_nms_sigma"};
    for (int i = 2; i < (Version == 5 ? 6 : 5); ++i)
      CAFLOW_OP_REQUIRES(ctx, ctx.input(i).rank() == 0,
                         errors::invalid_argument(scalar_names[i - 2], " must be a scalar, got ",
                                                  "shape ", ctx.input(i).shape().to_string()));
    const int64_t max_output = ctx.input(2).data<int32_t>()[0];
    const float iou_threshold = ctx.input(3).data<float>()[0];
    const float score_threshold = ctx.input(4).data<float>()[0];
    const float sigma = Version == 5 ? ctx.input(5).data<float>()[0] : 0.0f;
    CAFLOW_OP_REQUIRES(ctx, max_output >= 0,
                       errors::invalid_argument("max_output_size must be non-negative, got ",
                                                max_output));
    CAFLOW_OP_REQUIRES(ctx, iou_threshold >= 0 && iou_threshold <= 1,
                       errors::invalid_argument("iou_threshold must be in [0, 1], got ",
                                                iou_threshold));
    CAFLOW_OP_REQUIRES(ctx, sigma >= 0,
                       errors::invalid_argument("soft_nms_sigma must be non-negative, got ",
                                                sigma));
    nms_result r = select_boxes(boxes.data<float>(), scores.data<float>(), num_boxes, max_output,
                                iou_threshold, score_threshold, sigma);
    const int32_t valid = static_cast<int32_t>(r.indices.size());
    if (pad_) {
      r.indices.resize(static_cast<size_t>(max_output), 0);
      r.scores.resize(static_cast<size_t>(max_output), 0.0f);
    }
    const tensor_shape shape{static_cast<int64_t>(r.indices.size())};
    tensor* indices = ctx.allocate_output(0, shape);
    if (indices == nullptr) return;
    std::copy(r.indices.begin(), r.indices.end(), indices->data<int32_t>());
    if constexpr (Version == 5) {
      tensor* selected_scores = ctx.allocate_output(1, shape);
      if (selected_scores == nullptr) return;
      std::copy(r.scores.begin(), r.scores.end(), selected_scores->data<float>());
    }
    if constexpr (Version >= 4) {
      tensor* valid_outputs = ctx.allocate_output(Version == 5 ? 2 : 1, tensor_shape{});
      if (valid_outputs == nullptr) return;
      *valid_outputs->data<int32_t>() = valid;
    }
  }

 private:
  bool pad_ = false;
};

}  // namespace

CAFLOW_REGISTER_KERNEL(kernel_def_builder("NonMaxSuppressionV3").device(device_cpu),
                       non_max_suppression_op<3>);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("NonMaxSuppressionV4").device(device_cpu),
                       non_max_suppression_op<4>);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("NonMaxSuppressionV5").device(device_cpu),
                       non_max_suppression_op<5>);

}  // namespace caflow
