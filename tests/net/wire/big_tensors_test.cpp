// Feeds and fetches bigger than one message (max_wire_tensor_bytes) between processes: the
// client's feed reaches the master in chunks, the master's feed to a worker of another process
// goes in chunks, that worker's fetch comes back in chunks, and the master's fetches reach the
// client in chunks. Three caflow-server processes; the client is this test process.
#include <doctest/doctest.h>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "net/wire/wire_tensor.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/three_process_cluster.hpp"

using namespace caflow;
using caflow::testing::remote;
using caflow::testing::three_process_cluster;

namespace {

// 12 Mi float32 = 48 MiB, over the one-message limit; values exact in float32.
constexpr int64_t n = 12 << 20;

tensor ramp() {
  tensor t(dtype::float32, tensor_shape{n});
  float* p = t.data<float>();
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(i % 1000);
  return t;
}

// Where `t` differs from f(i % 1000), or -1.
template <class F>
int64_t first_mismatch(const tensor& t, F f) {
  if (t.type() != dtype::float32 || t.num_elements() != n) return 0;
  const float* p = t.data<float>();
  for (int64_t i = 0; i < n; ++i)
    if (p[i] != f(static_cast<float>(i % 1000))) return i;
  return -1;
}

}  // namespace

TEST_CASE("feeds and fetches over the one-message limit cross processes in chunks") {
  static_assert(n * 4 > static_cast<int64_t>(max_wire_tensor_bytes));
  three_process_cluster c;
  REQUIRE(c.ready());
  auto root = scope::new_root();
  auto w0 = root.with_device("/job:worker/task:0");  // the master's own task
  auto w1 = root.with_device("/job:worker/task:1");
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32, {.shape = {n}});
  auto doubled = ops::mul(w1.with_op_name("doubled"), x, ops::constant(w1, 2.0f));
  auto plus_one = ops::add(w0.with_op_name("plus_one"), x, ops::constant(w0, 1.0f));
  auto total = ops::sum(root.with_device("/job:ps/task:0").with_op_name("total"), doubled,
                        std::vector<int>{0});
  session sess(root, remote(c.target()));
  const tensor feed = ramp();
  for (int step = 0; step < 2; ++step) {  // the second step reuses the assembly buffers
    auto out = sess.run({{x, feed}}, {doubled, plus_one, total});
    if (!out.ok()) MESSAGE(c.outputs());
    REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
    CHECK(first_mismatch(out->at(0), [](float v) { return 2 * v; }) == -1);
    CHECK(first_mismatch(out->at(1), [](float v) { return v + 1; }) == -1);
    // sum of 2 * (i % 1000) over 12 Mi elements: 12582 full cycles of 999000 plus 0..911 doubled.
    const double expected = 12582.0 * 999000.0 + 2.0 * (911.0 * 912.0 / 2.0);
    CHECK(out->at(2).scalar_value<float>() == doctest::Approx(expected).epsilon(1e-4));
  }
}

TEST_CASE("a big feed of the wrong shape is refused naming the feed") {
  three_process_cluster c;
  REQUIRE(c.ready());
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32, {.shape = {n / 2}});
  auto y = ops::neg(root.with_device("/job:worker/task:1").with_op_name("y"), x);
  session sess(root, remote(c.target()));
  caflow::testing::check_error(sess.run({{x, ramp()}}, {y}), "feed 'x' expects float32[6291456]");
}
