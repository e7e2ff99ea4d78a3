// The TensorArrayV3 family run in a session: writes and reads ordered by flows, gather,
// scatter, concat, split, size, close, gradient arrays, and the errors of bad use.
#include <doctest/doctest.h>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;

namespace {

output i32(const scope& s, int v) { return ops::constant(s, int32_t{v}); }
output ivec(const scope& s, std::vector<int32_t> v) {
  return ops::constant(s, tensor::from_vector<int32_t>(v));
}

status_or<std::vector<tensor>> run(const scope& root, const std::vector<output>& fetches,
                                   const std::vector<operation>& targets = {}) {
  if (!root.ok()) return root.get_status();
  session sess(root);
  return sess.run({}, fetches, targets);
}

}  // namespace

TEST_CASE("Write, read, size and a second step with a fresh array") {
  auto root = scope::new_root();
  auto ta = ops::tensor_array(root, i32(root, 3), dtype::float32);
  auto f1 = ops::tensor_array_write(root, ta.handle, i32(root, 0),
                                    ops::constant(root, tensor::from_vector<float>({1, 2})), ta.flow);
  auto f2 = ops::tensor_array_write(root, ta.handle, i32(root, 2),
                                    ops::constant(root, tensor::from_vector<float>({5, 6})), f1);
  auto r = ops::tensor_array_read(root, ta.handle, i32(root, 2), f2, dtype::float32);
  auto n = ops::tensor_array_size(root, ta.handle, f2);
  REQUIRE(root.ok());
  session sess(root);
  for (int step = 0; step < 2; ++step) {
    // Each step makes its own array: the same writes do not collide across steps.
    auto out = sess.run({}, {r, n});
    REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
    check_tensor<float>(out->at(0), {2}, {5, 6});
    check_tensor<int32_t>(out->at(1), {}, {3});
  }
}

TEST_CASE("Scatter then gather, split then concat") {
  auto root = scope::new_root();
  auto ta = ops::tensor_array(root, i32(root, 3), dtype::int32, {.clear_after_read = false});
  auto f = ops::tensor_array_scatter(root, ta.handle, ivec(root, {2, 0, 1}),
                                     ops::constant(root, iota<int32_t>({3, 2})), ta.flow);
  auto g = ops::tensor_array_gather(root, ta.handle, ivec(root, {0, 1, 2, 0}), f, dtype::int32);
  auto c = ops::tensor_array_concat(root, ta.handle, f, dtype::int32);
  auto out = run(root, {g, c[0], c[1]});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  check_tensor<int32_t>(out->at(0), {4, 2}, {2, 3, 4, 5, 0, 1, 2, 3});
  check_tensor<int32_t>(out->at(1), {6}, {2, 3, 4, 5, 0, 1});
  check_tensor<int64_t>(out->at(2), {3}, {2, 2, 2});

  auto r2 = scope::new_root();
  auto tb = ops::tensor_array(r2, i32(r2, 3), dtype::float64, {.identical_element_shapes = false});
  auto fs = ops::tensor_array_split(r2, tb.handle, ops::constant(r2, iota<double>({5, 2})),
                                    ops::constant(r2, tensor::from_vector<int64_t>({2, 0, 3})),
                                    tb.flow);
  auto cc = ops::tensor_array_concat(r2, tb.handle, fs, dtype::float64);
  auto out2 = run(r2, {cc[0], cc[1]});
  REQUIRE_MESSAGE(out2.ok(), out2.get_status().to_string());
  check_tensor(out2->at(0), iota<double>({5, 2}));
  check_tensor<int64_t>(out2->at(1), {3}, {2, 0, 3});
}

TEST_CASE("A dynamically sized array grows; unwritten elements read as zeros with a full shape") {
  auto root = scope::new_root();
  auto ta = ops::tensor_array(root, i32(root, 0), dtype::float32,
                              {.element_shape = partial_shape{2}, .dynamic_size = true});
  auto f = ops::tensor_array_write(root, ta.handle, i32(root, 3),
                                   ops::constant(root, tensor::from_vector<float>({7, 8})), ta.flow);
  auto n = ops::tensor_array_size(root, ta.handle, f);
  auto zero = ops::tensor_array_read(root, ta.handle, i32(root, 1), f, dtype::float32);
  auto out = run(root, {n, zero});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  check_tensor<int32_t>(out->at(0), {}, {4});
  check_tensor<float>(out->at(1), {2}, {0, 0});
}

TEST_CASE("With identical_element_shapes every element has the first one's shape") {
  auto root = scope::new_root();
  auto ta = ops::tensor_array(root, i32(root, 2), dtype::float32);
  auto f1 = ops::tensor_array_write(root, ta.handle, i32(root, 0),
                                    ops::constant(root, iota<float>({2})), ta.flow);
  auto f2 = ops::tensor_array_write(root, ta.handle, i32(root, 1),
                                    ops::constant(root, iota<float>({3})), f1);
  check_error(run(root, {f2}), "the value has shape [3], incompatible with the element shape [2]");
}

TEST_CASE("Bad use of a TensorArray fails the step naming the node") {
  const tensor v = tensor::from_vector<float>({1});
  SUBCASE("index out of range") {
    auto root = scope::new_root();
    auto ta = ops::tensor_array(root, i32(root, 2), dtype::float32);
    auto f = ops::tensor_array_write(root.with_op_name("bad_write"), ta.handle, i32(root, 2),
                                     ops::constant(root, v), ta.flow);
    auto out = run(root, {f});
    check_error(out, "bad_write");
    check_error(out, "tried to write index 2 but the array has size 2");
  }
  SUBCASE("writing twice") {
    auto root = scope::new_root();
    auto ta = ops::tensor_array(root, i32(root, 2), dtype::float32);
    auto f1 = ops::tensor_array_write(root, ta.handle, i32(root, 0), ops::constant(root, v), ta.flow);
    auto f2 = ops::tensor_array_write(root, ta.handle, i32(root, 0), ops::constant(root, v), f1);
    check_error(run(root, {f2}), "could not write index 0 because it has already been written to");
  }
  SUBCASE("reading twice with clear_after_read, and reading unwritten") {
    auto root = scope::new_root();
    auto ta = ops::tensor_array(root, i32(root, 2), dtype::float32,
                                {.identical_element_shapes = false});
    auto f = ops::tensor_array_write(root, ta.handle, i32(root, 0), ops::constant(root, v), ta.flow);
    auto r1 = ops::tensor_array_read(root, ta.handle, i32(root, 0), f, dtype::float32);
    auto r2 = ops::tensor_array_read(root.with_control_dependencies({r1}), ta.handle, i32(root, 0),
                                     f, dtype::float32);
    check_error(run(root, {r2}), "could not read index 0 twice");
    auto r3 = ops::tensor_array_read(root, ta.handle, i32(root, 1), f, dtype::float32);
    check_error(run(root, {r3}), "could not read index 1 because it has not been written to");
  }
  SUBCASE("wrong dtype, closed array, bad split") {
    auto root = scope::new_root();
    auto ta = ops::tensor_array(root, i32(root, 2), dtype::float32);
    auto f = ops::tensor_array_write(root, ta.handle, i32(root, 0), ops::constant(root, int32_t{1}),
                                     ta.flow);
    check_error(run(root, {f}), "holds float32 but the value written at index 0 is int32");
    auto r = ops::tensor_array_read(root, ta.handle, i32(root, 0), ta.flow, dtype::int32);
    check_error(run(root, {r}), "TensorArray holds float32 but the op reads int32");
    auto close = ops::tensor_array_close(root, ta.handle);
    auto n = ops::tensor_array_size(root.with_control_dependencies({close}), ta.handle, ta.flow);
    check_error(run(root, {n}), "has already been closed");
    auto s = ops::tensor_array_split(root, ta.handle, ops::constant(root, iota<float>({3})),
                                     ops::constant(root, tensor::from_vector<int64_t>({1, 1})),
                                     ta.flow);
    check_error(run(root, {s}), "lengths sum to 2 but value has shape [3]");
    auto s3 = ops::tensor_array_split(root, ta.handle, ops::constant(root, iota<float>({3})),
                                      ops::constant(root, tensor::from_vector<int64_t>({1, 1, 1})),
                                      ta.flow);
    check_error(run(root, {s3}), "size 2 differs from the 3 lengths");
    auto bad_size = ops::tensor_array(root, i32(root, -1), dtype::float32);
    check_error(root.get_status(), "size must be non-negative, got -1");
  }
}

TEST_CASE("TensorArrayGradV3 gives one gradient array per source; writes to it aggregate") {
  auto root = scope::new_root();
  auto ta = ops::tensor_array(root, i32(root, 2), dtype::float32);
  auto g1 = ops::tensor_array_grad(root, ta.handle, ta.flow, "gradients");
  auto w1 = ops::tensor_array_write(root, g1.handle, i32(root, 1),
                                    ops::constant(root, tensor::from_vector<float>({1, 2})), g1.flow);
  auto w2 = ops::tensor_array_write(root, g1.handle, i32(root, 1),
                                    ops::constant(root, tensor::from_vector<float>({10, 20})), w1);
  // The same source finds the same array.
  auto again = ops::tensor_array_grad(root, ta.handle, w2, "gradients");
  auto r = ops::tensor_array_read(root, again.handle, i32(root, 1), again.flow, dtype::float32);
  auto other = ops::tensor_array_grad(root, ta.handle, w2, "gradients_1");
  auto n = ops::tensor_array_size(root, other.handle, other.flow);
  auto out = run(root, {r, n});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  check_tensor<float>(out->at(0), {2}, {11, 22});
  check_tensor<int32_t>(out->at(1), {}, {2});
}
