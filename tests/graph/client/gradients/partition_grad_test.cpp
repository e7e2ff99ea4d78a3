// Gradients of DynamicPartition and DynamicStitch against central differences. Outputs are
// weighted by a ramp first, so a gradient routed to the wrong row cannot pass.
#include <doctest/doctest.h>

#include "graph/client/ops/ops.hpp"
#include "test_util/gradient_checker.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_gradient;
using caflow::testing::ramp_weighted;
using caflow::testing::check_gradients;
using caflow::testing::iota;

namespace {

}  // namespace

TEST_CASE("DynamicPartition's gradient puts every output row back (one partition empty)") {
  auto root = scope::new_root();
  auto data = ops::placeholder(root.with_op_name("data"), dtype::float64);
  auto parts =
      ops::dynamic_partition(root, data, ops::constant(root, testing::vec32({1, 0, 3, 1, 0})), 4);
  REQUIRE(root.ok());
  check_gradient(root, data, ramp_weighted(root, ops::concat(root, parts, 0)),
                 iota<double>({5, 2}, -3.0));
  // Partitions of rank 2 over data [2, 2, 3], fed at run time.
  auto r2 = scope::new_root();
  auto d2 = ops::placeholder(r2.with_op_name("data"), dtype::float64);
  auto p2 = ops::placeholder(r2.with_op_name("partitions"), dtype::int32);
  auto parts2 = ops::dynamic_partition(r2, d2, p2, 2);
  check_gradient(r2, d2, ramp_weighted(r2, ops::concat(r2, parts2, 0)), iota<double>({2, 2, 3}, 1.0),
                 {.extra_feeds = {{p2, tensor::from_vector<int32_t>({1, 0, 0, 1}, {2, 2})}}});
}

TEST_CASE("DynamicStitch's gradient gathers each input's rows") {
  auto root = scope::new_root();
  auto x0 = ops::placeholder(root.with_op_name("x0"), dtype::float64);
  auto x1 = ops::placeholder(root.with_op_name("x1"), dtype::float64);
  auto merged = ops::dynamic_stitch(
      root,
      {ops::constant(root, testing::vec32({4, 1})), ops::constant(root, testing::vec32({0, 3, 2}))},
      {x0, x1});
  REQUIRE(root.ok());
  check_gradients(root, {x0, x1}, ramp_weighted(root, merged),
                  {iota<double>({2, 2}, 0.5), iota<double>({3, 2}, -2.0)});
}
