// SelectV2: condition, t and e broadcast together (TF >= 1.15).
#include <vector>

#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;

namespace {

tensor run(const std::vector<tensor>& inputs) {
  auto r = run_kernel("SelectV2", inputs);
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return r->at(0);
}

tensor cond(const std::vector<bool>& v, const tensor_shape& shape) {
  tensor t(dtype::boolean, shape);
  for (size_t i = 0; i < v.size(); ++i) t.data<bool>()[i] = v[i];
  return t;
}

}  // namespace

TEST_CASE("SelectV2 picks element-wise when all shapes agree") {
  check_tensor(run({cond({true, false, false, true}, {2, 2}), iota<float>({2, 2}, 1.0f),
                    iota<float>({2, 2}, -4.0f)}),
               {2, 2}, std::vector<float>{1, -3, -2, 4});
}

TEST_CASE("SelectV2 broadcasts condition, t and e together") {
  // condition [3,1] picks whole rows; t [1,4] is one row for all; e a scalar.
  check_tensor(run({cond({true, false, true}, {3, 1}), iota<int32_t>({1, 4}, 1),
                    tensor::scalar<int32_t>(-7)}),
               {3, 4}, std::vector<int32_t>{1, 2, 3, 4, -7, -7, -7, -7, 1, 2, 3, 4});
  // condition [4] along the last dim, t [2,1], e [2,4]: the output takes the broadcast shape.
  check_tensor(run({cond({true, false, false, true}, {4}),
                    tensor::from_vector<double>({10, 20}, {2, 1}), iota<double>({2, 4})}),
               {2, 4}, std::vector<double>{10, 1, 2, 10, 20, 5, 6, 20});
  // A scalar condition with t and e broadcast: still the broadcast shape, not t's.
  check_tensor(run({cond({false}, {}), iota<float>({2, 1}), iota<float>({1, 3}, 5.0f)}), {2, 3},
               std::vector<float>{5, 6, 7, 5, 6, 7});
  // A scalar condition with everything of one shape shares the chosen input.
  const tensor t = iota<float>({2, 3});
  const tensor chosen = run({cond({true}, {}), t, iota<float>({2, 3}, 9.0f)});
  CHECK(chosen.raw_data() == t.raw_data());
  // Rank 3 with every input broadcast somewhere.
  check_tensor(run({cond({true, false}, {2, 1, 1}), iota<int64_t>({1, 2, 1}, 1),
                    iota<int64_t>({1, 1, 2}, 10)}),
               {2, 2, 2}, std::vector<int64_t>{1, 1, 2, 2, 10, 11, 10, 11});
  check_tensor(run({cond({}, {0, 1}), iota<float>({1, 3}), iota<float>({1, 3})}), {0, 3},
               std::vector<float>{});
}

TEST_CASE("SelectV2 refuses shapes that do not broadcast, at graph construction and run time") {
  check_error(
      run_kernel("SelectV2", {cond({true, false}, {2}), iota<float>({3}), iota<float>({3})}),
      "condition of shape [2] must broadcast with 't' and 'e' ([3])");
  check_error(run_kernel("SelectV2", {cond({true}, {}), iota<float>({2}), iota<float>({3})}),
              "'t' of shape [2] and 'e' of shape [3] must broadcast");
  check_error(run_kernel_unchecked("SelectV2",
                                   {cond({true, false}, {2}), iota<float>({3}), iota<float>({3})}),
              "incompatible shapes for broadcasting: [2] and [3]");
}

TEST_CASE("ops::select_v2 infers the broadcast shape") {
  auto root = scope::new_root();
  auto c = ops::placeholder(root, dtype::boolean, {.shape = partial_shape{-1, 1}});
  auto t = ops::placeholder(root, dtype::float32, {.shape = partial_shape{1, 5}});
  auto e = ops::placeholder(root, dtype::float32, {.shape = partial_shape(tensor_shape{})});
  auto y = ops::select_v2(root, c, t, e);
  REQUIRE(root.ok());
  CHECK(root.shape_of(y) == partial_shape{-1, 5});
  CHECK(y.type == dtype::float32);
}
