// Construction ops: Fill, ZerosLike, OnesLike, Range, OneHot.
#include <cstdint>
#include <limits>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;

TEST_CASE("Fill builds a tensor of the given dims from a scalar") {
  auto f = run_kernel("Fill", {tensor::from_vector<int32_t>({2, 3}), tensor::scalar<float>(1.5f)});
  REQUIRE(f.ok());
  check_tensor<float>(f->at(0), {2, 3}, {1.5f, 1.5f, 1.5f, 1.5f, 1.5f, 1.5f});

  auto b = run_kernel("Fill", {tensor::from_vector<int64_t>({3}), tensor::scalar<bool>(true)});
  REQUIRE(b.ok());
  check_tensor<bool>(b->at(0), {3}, {true, true, true});

  auto u = run_kernel("Fill", {tensor::from_vector<int32_t>({1, 2}), tensor::scalar<uint8_t>(200)});
  REQUIRE(u.ok());
  check_tensor<uint8_t>(u->at(0), {1, 2}, {200, 200});

  auto scalar = run_kernel("Fill", {tensor::from_vector<int64_t>({}), tensor::scalar<double>(-2)});
  REQUIRE(scalar.ok());
  check_tensor<double>(scalar->at(0), {}, {-2});

  auto empty =
      run_kernel("Fill", {tensor::from_vector<int32_t>({0, 4}), tensor::scalar<int64_t>(9)});
  REQUIRE(empty.ok());
  CHECK(empty->at(0).shape() == tensor_shape{0, 4});

  // Big enough for the intra-op pool.
  auto big =
      run_kernel("Fill", {tensor::from_vector<int32_t>({300, 200}), tensor::scalar<int32_t>(7)});
  REQUIRE(big.ok());
  REQUIRE(big->at(0).shape() == tensor_shape{300, 200});
  int64_t sevens = 0;
  for (int32_t v : big->at(0).to_vector<int32_t>()) sevens += v == 7;
  CHECK(sevens == 60000);

  check_error(run_kernel("Fill", {tensor::from_vector<int32_t>({2, -1}), tensor::scalar<float>(0)}),
              "dims [2,-1]: shape dimension -1 is negative");
  check_error(
      run_kernel("Fill", {tensor::from_vector<int32_t>({2}), tensor::from_vector<float>({1, 2})}),
      "input 1 must have rank 0");
}

TEST_CASE("Fill's shape comes from constant dims at graph construction") {
  auto root = scope::new_root();
  auto f = ops::fill(root, ops::constant(root, tensor::from_vector<int32_t>({2, 3})),
                     ops::constant(root, 1.0f));
  CHECK(f.type == dtype::float32);
  CHECK(root.shape_of(f) == partial_shape{2, 3});
  auto dims = ops::placeholder(root, dtype::int64, {.shape = partial_shape{2}});
  CHECK(root.shape_of(ops::fill(root, dims, ops::constant(root, 1))) ==
        partial_shape::unknown_of_rank(2));
  REQUIRE(root.ok());
  ops::fill(root, ops::constant(root, tensor::from_vector<int32_t>({-3})), ops::constant(root, 1));
  check_error(root.get_status(), "dims [-3]");
}

TEST_CASE("ZerosLike and OnesLike keep shape and dtype") {
  auto z = run_kernel("ZerosLike", {tensor::from_vector<float>({3, -1, 2, 8}, {2, 2})});
  REQUIRE(z.ok());
  check_tensor<float>(z->at(0), {2, 2}, {0, 0, 0, 0});
  auto o = run_kernel("OnesLike", {tensor::from_vector<int64_t>({5, 6, 7})});
  REQUIRE(o.ok());
  check_tensor<int64_t>(o->at(0), {3}, {1, 1, 1});

  auto zb = run_kernel("ZerosLike", {tensor::from_vector<bool>({true, true})});
  REQUIRE(zb.ok());
  check_tensor<bool>(zb->at(0), {2}, {false, false});
  auto ob = run_kernel("OnesLike", {tensor::scalar<bool>(false)});
  REQUIRE(ob.ok());
  check_tensor<bool>(ob->at(0), {}, {true});
  auto ou = run_kernel("OnesLike", {tensor::from_vector<uint8_t>({0, 9})});
  REQUIRE(ou.ok());
  check_tensor<uint8_t>(ou->at(0), {2}, {1, 1});
  auto zd = run_kernel("ZerosLike", {tensor(dtype::float64, {0, 3})});
  REQUIRE(zd.ok());
  CHECK(zd->at(0).shape() == tensor_shape{0, 3});

  const tensor x = tensor::filled<int32_t>({250, 200}, -5);
  auto big = run_kernel("OnesLike", {x});
  REQUIRE(big.ok());
  CHECK_FALSE(big->at(0).shares_buffer_with(x));
  int64_t ones = 0;
  for (int32_t v : big->at(0).to_vector<int32_t>()) ones += v == 1;
  CHECK(ones == 50000);
}

TEST_CASE("Range counts up and down, excluding the limit") {
  auto up = run_kernel("Range", {tensor::scalar<int32_t>(3), tensor::scalar<int32_t>(18),
                                 tensor::scalar<int32_t>(3)});
  REQUIRE(up.ok());
  check_tensor<int32_t>(up->at(0), {5}, {3, 6, 9, 12, 15});

  auto down = run_kernel("Range", {tensor::scalar<int64_t>(10), tensor::scalar<int64_t>(2),
                                   tensor::scalar<int64_t>(-3)});
  REQUIRE(down.ok());
  check_tensor<int64_t>(down->at(0), {3}, {10, 7, 4});

  auto f = run_kernel(
      "Range", {tensor::scalar<float>(0), tensor::scalar<float>(1), tensor::scalar<float>(0.25f)});
  REQUIRE(f.ok());
  check_tensor<float>(f->at(0), {4}, {0, 0.25f, 0.5f, 0.75f});

  auto d = run_kernel("Range", {tensor::scalar<double>(1), tensor::scalar<double>(-0.2),
                                tensor::scalar<double>(-0.5)});
  REQUIRE(d.ok());
  check_tensor<double>(d->at(0), {3}, {1, 0.5, 0});

  auto empty = run_kernel("Range", {tensor::scalar<int32_t>(5), tensor::scalar<int32_t>(5),
                                    tensor::scalar<int32_t>(1)});
  REQUIRE(empty.ok());
  CHECK(empty->at(0).shape() == tensor_shape{0});

  // 3 * delta leaves int32's range although every value lies within it.
  auto wide = run_kernel("Range",
                         {tensor::scalar<int32_t>(-2000000000), tensor::scalar<int32_t>(2000000000),
                          tensor::scalar<int32_t>(1000000000)});
  REQUIRE(wide.ok());
  check_tensor<int32_t>(wide->at(0), {4}, {-2000000000, -1000000000, 0, 1000000000});

  constexpr int64_t lo = std::numeric_limits<int64_t>::min();
  auto extreme =
      run_kernel("Range", {tensor::scalar<int64_t>(lo), tensor::scalar<int64_t>(0),
                           tensor::scalar<int64_t>(std::numeric_limits<int64_t>::max())});
  REQUIRE(extreme.ok());
  check_tensor<int64_t>(extreme->at(0), {2}, {lo, -1});
}

TEST_CASE("Range rejects a zero delta and a limit on the wrong side") {
  const auto i32 = [](int32_t v) { return tensor::scalar<int32_t>(v); };
  check_error(run_kernel("Range", {i32(0), i32(5), i32(0)}), "delta must not be 0");
  check_error(run_kernel("Range", {i32(5), i32(0), i32(1)}),
              "start 5 is above limit 0 although delta 1 is positive");
  check_error(run_kernel("Range", {i32(0), i32(5), i32(-1)}), "is below limit 5");
  check_error(run_kernel("Range", {tensor::scalar<float>(0),
                                   tensor::scalar<float>(std::numeric_limits<float>::infinity()),
                                   tensor::scalar<float>(1)}),
              "must be finite");
  check_error(run_kernel("Range", {tensor::from_vector<int32_t>({0, 1}), i32(5), i32(1)}),
              "start must be a scalar, got shape [2]");
}

TEST_CASE("Range's length is known at graph construction for constant arguments") {
  auto root = scope::new_root();
  auto r =
      ops::range(root, ops::constant(root, 0), ops::constant(root, 10), ops::constant(root, 3));
  CHECK(root.shape_of(r) == partial_shape{4});
  auto start = ops::placeholder(root, dtype::int32, {.shape = partial_shape(tensor_shape{})});
  CHECK(root.shape_of(ops::range(root, start, ops::constant(root, 10), ops::constant(root, 3))) ==
        partial_shape{-1});
  REQUIRE(root.ok());
  ops::range(root.with_op_name("r0"), ops::constant(root, 0.f), ops::constant(root, 1.f),
             ops::constant(root, 0.f));
  check_error(root.get_status(), "node 'r0' (Range): delta must not be 0");
}

TEST_CASE("OneHot puts on_value where the index matches, off_value elsewhere") {
  const auto depth = [](int32_t d) { return tensor::scalar<int32_t>(d); };
  auto last = run_kernel("OneHot", {tensor::from_vector<int32_t>({0, 2, -1, 1}), depth(3),
                                    tensor::scalar<float>(1), tensor::scalar<float>(0)});
  REQUIRE(last.ok());
  check_tensor<float>(last->at(0), {4, 3}, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0});

  auto first = run_kernel("OneHot",
                          {tensor::from_vector<int64_t>({0, 2, 1}), depth(3),
                           tensor::scalar<double>(1), tensor::scalar<double>(0)},
                          {{"axis", 0}});
  REQUIRE(first.ok());
  check_tensor<double>(first->at(0), {3, 3}, {1, 0, 0, 0, 0, 1, 0, 1, 0});

  // out[p, d, s] = indices[p, s] == d; 3 is past depth 2, so its column is all off.
  auto middle = run_kernel("OneHot",
                           {tensor::from_vector<int64_t>({0, 1, 1, 3}, {2, 2}), depth(2),
                            tensor::scalar<int32_t>(5), tensor::scalar<int32_t>(-1)},
                           {{"axis", 1}});
  REQUIRE(middle.ok());
  check_tensor<int32_t>(middle->at(0), {2, 2, 2}, {5, -1, -1, 5, -1, -1, 5, -1});

  auto bytes = run_kernel("OneHot", {tensor::from_vector<uint8_t>({200, 1, 2}), depth(2),
                                     tensor::scalar<int64_t>(7), tensor::scalar<int64_t>(3)});
  REQUIRE(bytes.ok());
  check_tensor<int64_t>(bytes->at(0), {3, 2}, {3, 3, 3, 7, 3, 3});

  auto none = run_kernel("OneHot", {tensor::from_vector<int32_t>({0, 1}), depth(0),
                                    tensor::scalar<float>(1), tensor::scalar<float>(0)});
  REQUIRE(none.ok());
  CHECK(none->at(0).shape() == tensor_shape{2, 0});

  auto scalar_index = run_kernel("OneHot", {tensor::scalar<int32_t>(1), depth(3),
                                            tensor::scalar<float>(1), tensor::scalar<float>(0)});
  REQUIRE(scalar_index.ok());
  check_tensor<float>(scalar_index->at(0), {3}, {0, 1, 0});
}

TEST_CASE("OneHot validates depth and axis") {
  const std::vector<tensor> args = {tensor::from_vector<int32_t>({0, 1}),
                                    tensor::scalar<int32_t>(-1), tensor::scalar<float>(1),
                                    tensor::scalar<float>(0)};
  check_error(run_kernel("OneHot", args), "depth must be non-negative, got -1");
  std::vector<tensor> ok_depth = args;
  ok_depth[1] = tensor::scalar<int32_t>(2);
  check_error(run_kernel("OneHot", ok_depth, {{"axis", -2}}), "axis must be -1 or a dimension");
  check_error(run_kernel("OneHot", ok_depth, {{"axis", 2}}),
              "axis 2 is out of range for indices of shape [2]");

  auto root = scope::new_root();
  auto indices = ops::placeholder(root, dtype::int64, {.shape = partial_shape{-1}});
  const auto on = ops::constant(root, 1.f), off = ops::constant(root, 0.f);
  auto d4 = ops::constant(root, int32_t{4});
  CHECK(root.shape_of(ops::one_hot(root, indices, d4, on, off)) == partial_shape{-1, 4});
  CHECK(root.shape_of(ops::one_hot(root, indices, d4, on, off, {.axis = 0})) ==
        partial_shape{4, -1});
  CHECK(root.ok());
}

TEST_CASE("Fill, Range and OneHot check fed values at run time") {
  auto root = scope::new_root();
  auto dims = ops::placeholder(root, dtype::int32);
  auto filled = ops::fill(root, dims, ops::constant(root, 2.f));
  auto delta = ops::placeholder(root, dtype::int64);
  auto r =
      ops::range(root, ops::constant(root, int64_t{0}), ops::constant(root, int64_t{4}), delta);
  auto depth = ops::placeholder(root, dtype::int32);
  auto hot = ops::one_hot(root, ops::constant(root, tensor::from_vector<int32_t>({1, 0})), depth,
                          ops::constant(root, 1.f), ops::constant(root, 0.f));
  REQUIRE(root.ok());
  session sess(root);
  auto ok = sess.run({{dims, tensor::from_vector<int32_t>({2})},
                      {delta, tensor::scalar<int64_t>(2)},
                      {depth, tensor::scalar<int32_t>(2)}},
                     {filled, r, hot});
  REQUIRE(ok.ok());
  check_tensor<float>(ok->at(0), {2}, {2, 2});
  check_tensor<int64_t>(ok->at(1), {2}, {0, 2});
  check_tensor<float>(ok->at(2), {2, 2}, {0, 1, 1, 0});
  check_error(sess.run({{dims, tensor::from_vector<int32_t>({2, -1})}}, {filled}),
              "dims [2,-1]: shape dimension -1 is negative");
  check_error(sess.run({{delta, tensor::scalar<int64_t>(0)}}, {r}), "delta must not be 0");
  check_error(sess.run({{depth, tensor::scalar<int32_t>(-2)}}, {hot}),
              "depth must be non-negative, got -2");
}
