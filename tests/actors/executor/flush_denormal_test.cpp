// Kernels run with denormals flushed to zero, as TensorFlow's CPU threads do
// (graph/platform/denormal.hpp): a result below the smallest normal float is zero and a
// denormal input reads as zero, both on the thread that runs the node and on the intra-op
// threads that share a large element-wise op.
#include <doctest/doctest.h>

#include <limits>
#include <vector>

#include "actors/session/session.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_ops.hpp"

using namespace caflow;

namespace {

// x * scale through a session, x fed (a constant operand would be folded before any kernel ran).
std::vector<float> scaled(const std::vector<float>& x, float scale) {
  auto root = scope::new_root();
  auto in = ops::placeholder(root, dtype::float32, {.shape = {-1}});
  auto y = ops::mul(root, in, ops::constant(root, std::vector<float>{scale}, {}));
  session sess(root, {.cpu = {.intra_op_threads = 2}});
  auto out = sess.run({{in, tensor::from_vector<float>(x)}}, {y});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  const float* v = out->at(0).data<float>();
  return {v, v + out->at(0).num_elements()};
}

}  // namespace

TEST_CASE("a result below the smallest normal float is zero; normal results are exact") {
  const auto y = scaled({1e-30f, 1e-20f, 3.0f}, 1e-10f);
  CHECK(y[0] == 0.0f);  // 1e-40 is denormal
  CHECK(y[1] == 1e-20f * 1e-10f);
  CHECK(y[2] == 3.0f * 1e-10f);
}

TEST_CASE("a denormal input reads as zero") {
  const float denormal = std::numeric_limits<float>::denorm_min() * 1000;
  const auto y = scaled({denormal, 1.0f}, 1e10f);
  CHECK(y[0] == 0.0f);  // 1.4e-42 * 1e10 would be 1.4e-32 with denormals honoured
  CHECK(y[1] == 1e10f);
}

TEST_CASE("every intra-op thread of a large element-wise op flushes") {
  const std::vector<float> x(1 << 20, 1e-30f);
  const auto y = scaled(x, 1e-10f);
  int64_t nonzero = 0;
  for (float v : y) nonzero += v != 0.0f;
  CHECK(nonzero == 0);
}
