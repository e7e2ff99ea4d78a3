// Pack and Unpack: stacking along a new axis and splitting along an existing one.
#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;

namespace {

// a[i] = base + i, for building inputs whose elements say where they came from.
tensor counting(const tensor_shape& shape, int32_t base) {
  std::vector<int32_t> v(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = base + static_cast<int32_t>(i);
  return tensor::from_vector<int32_t>(v, shape);
}

}  // namespace

TEST_CASE("Pack stacks along a new leading, middle or trailing axis") {
  const tensor a = tensor::from_vector<float>({1, 2});
  const tensor b = tensor::from_vector<float>({3, 4});
  auto rows = run_kernel("Pack", {a, b});
  REQUIRE(rows.ok());
  check_tensor<float>(rows->at(0), {2, 2}, {1, 2, 3, 4});
  auto cols = run_kernel("Pack", {a, b}, {{"axis", 1}});
  REQUIRE(cols.ok());
  check_tensor<float>(cols->at(0), {2, 2}, {1, 3, 2, 4});
  auto neg = run_kernel("Pack", {a, b}, {{"axis", -1}});
  REQUIRE(neg.ok());
  check_tensor<float>(neg->at(0), {2, 2}, {1, 3, 2, 4});

  const tensor m = counting({2, 3}, 0), n = counting({2, 3}, 10);
  auto middle = run_kernel("Pack", {m, n}, {{"axis", 1}});
  REQUIRE(middle.ok());
  check_tensor<int32_t>(middle->at(0), {2, 2, 3}, {0, 1, 2, 10, 11, 12, 3, 4, 5, 13, 14, 15});
  auto last = run_kernel("Pack", {m, n}, {{"axis", 2}});
  REQUIRE(last.ok());
  check_tensor<int32_t>(last->at(0), {2, 3, 2}, {0, 10, 1, 11, 2, 12, 3, 13, 4, 14, 5, 15});
}

TEST_CASE("Pack handles scalars, one input, empty inputs and every dtype") {
  auto scalars = run_kernel("Pack", {tensor::scalar<int64_t>(7), tensor::scalar<int64_t>(-8),
                                     tensor::scalar<int64_t>(9)});
  REQUIRE(scalars.ok());
  check_tensor<int64_t>(scalars->at(0), {3}, {7, -8, 9});

  auto single = run_kernel("Pack", {tensor::from_vector<double>({0.5, 1.5, 2.5})});
  REQUIRE(single.ok());
  check_tensor<double>(single->at(0), {1, 3}, {0.5, 1.5, 2.5});

  auto bools = run_kernel(
      "Pack", {tensor::from_vector<bool>({true, false}), tensor::from_vector<bool>({false, false})},
      {{"axis", 1}});
  REQUIRE(bools.ok());
  check_tensor<bool>(bools->at(0), {2, 2}, {true, false, false, false});

  auto bytes = run_kernel("Pack", {tensor::scalar<uint8_t>(255), tensor::scalar<uint8_t>(0)});
  REQUIRE(bytes.ok());
  check_tensor<uint8_t>(bytes->at(0), {2}, {255, 0});

  auto empty =
      run_kernel("Pack", {tensor(dtype::float32, {0}), tensor(dtype::float32, {0})}, {{"axis", 1}});
  REQUIRE(empty.ok());
  CHECK(empty->at(0).shape() == tensor_shape{0, 2});
}

TEST_CASE("Pack of large inputs (split over the thread pool) puts every element in place") {
  std::vector<tensor> inputs;
  for (int k = 0; k < 4; ++k) inputs.push_back(counting({100, 100}, k * 100000));
  auto out = run_kernel("Pack", inputs, {{"axis", 1}});
  REQUIRE(out.ok());
  REQUIRE(out->at(0).shape() == tensor_shape{100, 4, 100});
  const int32_t* y = out->at(0).data<int32_t>();
  int64_t misplaced = 0;
  for (int i = 0; i < 100; ++i)
    for (int k = 0; k < 4; ++k)
      for (int j = 0; j < 100; ++j)
        misplaced += y[(i * 4 + k) * 100 + j] != k * 100000 + i * 100 + j;
  CHECK(misplaced == 0);
}

TEST_CASE("Pack rejects mismatched shapes and bad axes") {
  check_error(
      run_kernel("Pack",
                 {tensor::from_vector<float>({1, 2}), tensor::from_vector<float>({1, 2, 3})}),
      "shapes of all inputs must match: values[0] has shape [2] but values[1] has shape [3]");
  check_error(run_kernel("Pack", {tensor::from_vector<float>({1, 2})}, {{"axis", 2}}),
              "axis 2 is out of range for packing inputs of shape [2] (allowed: [-2, 1])");
  check_error(run_kernel("Pack", {tensor::from_vector<float>({1, 2})}, {{"axis", -3}}),
              "axis -3 is out of range");
}

TEST_CASE("Pack's shape function merges input shapes") {
  auto root = scope::new_root();
  auto a = ops::placeholder(root, dtype::float32, {.shape = partial_shape{2, -1}});
  auto b = ops::placeholder(root, dtype::float32, {.shape = partial_shape{-1, 3}});
  CHECK(root.shape_of(ops::pack(root, {a, b})) == partial_shape{2, 2, 3});
  CHECK(root.shape_of(ops::pack(root, {a, b, a}, {.axis = -1})) == partial_shape{2, 3, 3});
  REQUIRE(root.ok());
  auto c = ops::placeholder(root, dtype::float32, {.shape = partial_shape{4, 3}});
  ops::pack(root.with_op_name("stack"), {b, c, a});
  check_error(root.get_status(), "node 'stack' (Pack): shapes of all inputs must match");
}

TEST_CASE("Unpack along axis 0 shares the input's bytes") {
  const tensor x = counting({3, 2}, 1);
  auto out = run_kernel("Unpack", {x}, {{"num", 3}});
  REQUIRE(out.ok());
  REQUIRE(out->size() == 3);
  check_tensor<int32_t>(out->at(0), {2}, {1, 2});
  check_tensor<int32_t>(out->at(1), {2}, {3, 4});
  check_tensor<int32_t>(out->at(2), {2}, {5, 6});
  for (const tensor& t : *out) CHECK(t.shares_buffer_with(x));

  // Only 1s ahead of the axis: still slices of the input.
  const tensor y = tensor::from_vector<float>({1, 2, 3, 4}, {1, 2, 2});
  auto inner = run_kernel("Unpack", {y}, {{"num", 2}, {"axis", 1}});
  REQUIRE(inner.ok());
  check_tensor<float>(inner->at(0), {1, 2}, {1, 2});
  check_tensor<float>(inner->at(1), {1, 2}, {3, 4});
  CHECK(inner->at(1).shares_buffer_with(y));
}

TEST_CASE("Unpack along inner and negative axes copies the right elements") {
  const tensor x = counting({3, 2}, 1);
  auto cols = run_kernel("Unpack", {x}, {{"num", 2}, {"axis", 1}});
  REQUIRE(cols.ok());
  check_tensor<int32_t>(cols->at(0), {3}, {1, 3, 5});
  check_tensor<int32_t>(cols->at(1), {3}, {2, 4, 6});
  auto neg = run_kernel("Unpack", {x}, {{"num", 2}, {"axis", -1}});
  REQUIRE(neg.ok());
  check_tensor<int32_t>(neg->at(1), {3}, {2, 4, 6});

  // out_j[i, k] = x[i, j, k] for x = 0..11 in shape [2, 3, 2].
  auto mid = run_kernel("Unpack", {counting({2, 3, 2}, 0)}, {{"num", 3}, {"axis", 1}});
  REQUIRE(mid.ok());
  check_tensor<int32_t>(mid->at(0), {2, 2}, {0, 1, 6, 7});
  check_tensor<int32_t>(mid->at(1), {2, 2}, {2, 3, 8, 9});
  check_tensor<int32_t>(mid->at(2), {2, 2}, {4, 5, 10, 11});

  auto bools = run_kernel("Unpack", {tensor::from_vector<bool>({true, false, false, true}, {2, 2})},
                          {{"num", 2}, {"axis", 1}});
  REQUIRE(bools.ok());
  check_tensor<bool>(bools->at(0), {2}, {true, false});
  check_tensor<bool>(bools->at(1), {2}, {false, true});

  auto doubles = run_kernel("Unpack", {tensor::from_vector<double>({0.5, -1})}, {{"num", 2}});
  REQUIRE(doubles.ok());
  check_tensor<double>(doubles->at(1), {}, {-1});

  auto none = run_kernel("Unpack", {tensor(dtype::uint8, {2, 0})}, {{"num", 0}, {"axis", 1}});
  REQUIRE(none.ok());
  CHECK(none->empty());
}

TEST_CASE("Unpack of a large input (split over the thread pool) puts every element in place") {
  auto out = run_kernel("Unpack", {counting({200, 4, 50}, 0)}, {{"num", 4}, {"axis", 1}});
  REQUIRE(out.ok());
  int64_t misplaced = 0;
  for (int j = 0; j < 4; ++j) {
    REQUIRE(out->at(j).shape() == tensor_shape{200, 50});
    const int32_t* y = out->at(j).data<int32_t>();
    for (int i = 0; i < 200; ++i)
      for (int k = 0; k < 50; ++k) misplaced += y[i * 50 + k] != (i * 4 + j) * 50 + k;
  }
  CHECK(misplaced == 0);
}

TEST_CASE("Unpack rejects a wrong num, a scalar and bad axes") {
  const tensor x = counting({3, 2}, 1);
  check_error(run_kernel("Unpack", {x}, {{"num", 2}}),
              "num is 2 but dimension 0 of input shape [3,2] has size 3");
  check_error(run_kernel("Unpack", {tensor::scalar<float>(1)}, {{"num", 1}}),
              "cannot unpack a scalar");
  check_error(run_kernel("Unpack", {x}, {{"num", 3}, {"axis", 2}}),
              "axis 2 is out of range for input of shape [3,2] (allowed: [-2, 2))");
  check_error(run_kernel("Unpack", {x}, {{"num", -1}}), "below its minimum 0");
}

TEST_CASE("unpack returns num outputs with their shapes") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float32, {.shape = partial_shape{-1, 3}});
  auto cols = ops::unpack(root, x, 3, {.axis = 1});
  REQUIRE(cols.size() == 3);
  for (int i = 0; i < 3; ++i) {
    CHECK(cols[i].index == i);
    CHECK(cols[i].type == dtype::float32);
    CHECK(root.shape_of(cols[i]) == partial_shape{-1});
  }
  auto unknown = ops::placeholder(root, dtype::int32);
  auto parts = ops::unpack(root, unknown, 2);
  CHECK(root.shape_of(parts[1]) == partial_shape::unknown());
  REQUIRE(root.ok());

  auto wrong = ops::unpack(root.with_op_name("split"), x, 4, {.axis = 1});
  REQUIRE(wrong.size() == 4);
  CHECK_FALSE(wrong[0].valid());
  check_error(root.get_status(), "node 'split' (Unpack): num is 4 but dimension 1");
}

TEST_CASE("Pack and Unpack check fed shapes at run time") {
  auto root = scope::new_root();
  auto a = ops::placeholder(root, dtype::int32);
  auto b = ops::placeholder(root, dtype::int32);
  auto stacked = ops::pack(root, {a, b});
  auto parts = ops::unpack(root, a, 2);
  REQUIRE(root.ok());
  session sess(root);
  auto ok = sess.run({{a, counting({2}, 1)}, {b, counting({2}, 3)}}, {stacked, parts[1]});
  REQUIRE(ok.ok());
  check_tensor<int32_t>(ok->at(0), {2, 2}, {1, 2, 3, 4});
  check_tensor<int32_t>(ok->at(1), {}, {2});
  check_error(sess.run({{a, counting({2}, 1)}, {b, counting({3}, 3)}}, {stacked}),
              "values[0] has shape [2] but values[1] has shape [3]");
  check_error(sess.run({{a, counting({3, 2}, 1)}}, {parts[0]}),
              "num is 2 but dimension 0 of input shape [3,2] has size 3");
}
