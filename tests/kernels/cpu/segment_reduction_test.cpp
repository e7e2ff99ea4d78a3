// SegmentSum, SegmentMean, SegmentMax and SegmentMin: values, empty segments, and the checks
// of segment_ids (sorted, non-negative, as long as data) naming the node and the position.
#include <doctest/doctest.h>

#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_segment_ops.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;

namespace {

tensor run1(const std::string& op, const tensor& data, const tensor& ids) {
  auto r = run_kernel(op, {data, ids});
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return r->at(0);
}

}  // namespace

TEST_CASE("segment reductions over rows") {
  const auto data = tensor::from_vector<double>({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2});
  const auto ids = tensor::from_vector<int32_t>({0, 0, 2, 2}, {4});
  // Segment 1 is named by no id: 0.
  check_tensor(run1("SegmentSum", data, ids), {3, 2}, std::vector<double>{4, 6, 0, 0, 12, 14});
  check_tensor(run1("SegmentMean", data, ids), {3, 2}, std::vector<double>{2, 3, 0, 0, 6, 7});
  check_tensor(run1("SegmentMax", data, ids), {3, 2}, std::vector<double>{3, 4, 0, 0, 7, 8});
  check_tensor(run1("SegmentMin", data, ids), {3, 2}, std::vector<double>{1, 2, 0, 0, 5, 6});
  const auto v = tensor::from_vector<int64_t>({5, -1, 3}, {3});
  const auto ids64 = tensor::from_vector<int64_t>({0, 1, 1}, {3});
  check_tensor(run1("SegmentSum", v, ids64), {2}, std::vector<int64_t>{5, 2});
  check_tensor(run1("SegmentMax", v, ids64), {2}, std::vector<int64_t>{5, 3});
  check_tensor(run1("SegmentSum", tensor::from_vector<float>({}, {0, 3}),
                    tensor::from_vector<int32_t>({}, {0})),
               tensor::from_vector<float>({}, {0, 3}));
}

TEST_CASE("bad segment ids fail, naming the node and the position") {
  const auto data = tensor::from_vector<double>({1, 2, 3}, {3});
  auto unsorted = run_kernel("SegmentSum", {data, tensor::from_vector<int32_t>({0, 2, 1})}, {},
                             {.infer_shapes = false});
  check_error(unsorted, "test_SegmentSum");
  check_error(unsorted, "segment_ids are not sorted: segment_ids[2] = 1 follows segment_ids[1] = 2");
  auto negative = run_kernel("SegmentMax", {data, tensor::from_vector<int32_t>({-1, 0, 0})}, {},
                             {.infer_shapes = false});
  check_error(negative, "segment_ids[0] = -1 is negative");
  check_error(run_kernel("SegmentMean", {data, tensor::from_vector<int32_t>({0, 0})}, {},
                         {.infer_shapes = false}),
              "must be as long as the first dimension of data");
  check_error(run_kernel("SegmentMean", {data, tensor::from_vector<int32_t>({0, 0})}),
              "test_SegmentMean");
  // A constant id vector fixes the number of segments at graph construction.
  auto root = scope::new_root();
  auto out = ops::segment_sum(root, ops::constant(root, data),
                              ops::constant(root, std::vector<int32_t>{0, 0, 4}, {3}));
  REQUIRE(root.ok());
  CHECK(root.shape_of(out) == partial_shape{5});
  ops::segment_sum(root.with_op_name("seg"), ops::constant(root, data),
                   ops::constant(root, std::vector<int32_t>{0, 1}, {2}));
  REQUIRE_FALSE(root.ok());
  CHECK(root.get_status().message().find("seg") != std::string::npos);
}
