// Gradients of SegmentSum, SegmentMean, SegmentMax and SegmentMin, checked against central
// differences (extrema without ties), and the even split of ties.
#include <doctest/doctest.h>

#include "actors/session/session.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_segment_ops.hpp"
#include "test_util/gradient_checker.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_gradient;
using caflow::testing::check_tensor;

namespace {

using segment_fn = output (*)(const scope&, const output&, const output&);

void check_segment(segment_fn f) {
  auto root = scope::new_root();
  auto data = ops::placeholder(root, dtype::float64);
  // Segment 1 is empty; segment 3 has one row.
  auto ids = ops::constant(root, std::vector<int32_t>{0, 0, 2, 2, 2, 3}, {6});
  const tensor dv = tensor::from_vector<double>(
      {0.3, -1.2, 2.5, 0.8, -0.6, 1.9, 0.1, 1.1, -2.2, 0.45, 3.3, -0.7}, {6, 2});
  check_gradient(root, data, testing::ramp_weighted(root, f(root, data, ids)), dv);
}

}  // namespace

TEST_CASE("segment reductions") {
  check_segment(ops::segment_sum);
  check_segment(ops::segment_mean);
  check_segment(ops::segment_max);
  check_segment(ops::segment_min);
}

TEST_CASE("SegmentMax splits a segment's gradient evenly among tied rows") {
  auto root = scope::new_root();
  auto data = ops::placeholder(root, dtype::float64);
  auto ids = ops::constant(root, std::vector<int64_t>{0, 0, 0, 1}, {4});
  auto out = ops::segment_max(root, data, ids);
  std::vector<output> grads;
  REQUIRE(add_symbolic_gradients(root, {out}, {data}, &grads).ok());
  session sess(root);
  auto r = sess.run({{data, tensor::from_vector<double>({2, 5, 5, 1}, {4})}}, {grads[0]});
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  check_tensor(r->at(0), tensor_shape{4}, std::vector<double>{0, 0.5, 0.5, 1});
}
