// Gradients of Einsum and BatchMatMul(V2), checked against central differences: every
// adjoint case, broadcast batch dims (known and unknown shapes), and the common equations.
#include <doctest/doctest.h>

#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_batch_matmul_ops.hpp"
#include "graph/client/ops/math_einsum_ops.hpp"
#include "test_util/gradient_checker.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_gradients;
using caflow::testing::iota;

namespace {

// Values spread over both signs so no symmetry hides a transposed gradient.
tensor values(const tensor_shape& shape, double start) {
  tensor t = iota<double>(shape, 0.0);
  double* d = t.data<double>();
  for (int64_t i = 0; i < t.num_elements(); ++i) d[i] = start + 0.37 * double(i) - 0.05 * double(i * i % 7);
  return t;
}

void check_bmm(const tensor& x, const tensor& y, bool adj_x, bool adj_y, bool known = true,
               bool v2 = true) {
  auto root = scope::new_root();
  auto px = ops::placeholder(root, dtype::float64,
                             {.shape = known ? partial_shape(x.shape()) : partial_shape::unknown()});
  auto py = ops::placeholder(root, dtype::float64,
                             {.shape = known ? partial_shape(y.shape()) : partial_shape::unknown()});
  const ops::batch_mat_mul_attrs attrs{.adj_x = adj_x, .adj_y = adj_y};
  auto z = v2 ? ops::batch_mat_mul_v2(root, px, py, attrs) : ops::batch_mat_mul(root, px, py, attrs);
  check_gradients(root, {px, py}, testing::ramp_weighted(root, z), {x, y});
}

void check_einsum(const std::string& eq, const std::vector<tensor>& in, bool known = true) {
  INFO(eq);
  auto root = scope::new_root();
  std::vector<output> ph;
  for (const tensor& t : in)
    ph.push_back(ops::placeholder(
        root, dtype::float64, {.shape = known ? partial_shape(t.shape()) : partial_shape::unknown()}));
  check_gradients(root, ph, testing::ramp_weighted(root, ops::einsum(root, ph, eq)), in);
}

}  // namespace

TEST_CASE("BatchMatMulV2: the four adjoint cases") {
  check_bmm(values({2, 3, 4}, -1), values({2, 4, 2}, 0.5), false, false);
  check_bmm(values({2, 4, 3}, -1), values({2, 4, 2}, 0.5), true, false);
  check_bmm(values({2, 3, 4}, -1), values({2, 2, 4}, 0.5), false, true);
  check_bmm(values({2, 4, 3}, -1), values({2, 2, 4}, 0.5), true, true);
  check_bmm(values({2, 3, 4}, -1), values({2, 4, 2}, 0.5), false, false, true, false);
  check_bmm(values({2, 4, 3}, -1), values({2, 2, 4}, 0.5), true, true, true, false);
}

TEST_CASE("BatchMatMulV2: gradients summed over broadcast batch dims") {
  check_bmm(values({2, 1, 3, 2}, -1), values({4, 2, 3}, 0.2), false, false);
  check_bmm(values({3, 2}, -1), values({2, 2, 4}, 0.2), false, false);
  check_bmm(values({2, 3, 2}, -1), values({2, 4}, 0.2), false, false);
  check_bmm(values({2, 1, 2, 3}, -1), values({3, 4, 3}, 0.2), false, true, false);
  check_bmm(values({2, 3}, -1), values({2, 2, 4}, 0.2), true, false, false);
}

TEST_CASE("Einsum: the common equations") {
  check_einsum("ij,jk->ik", {values({2, 3}, -1), values({3, 2}, 0.5)});
  check_einsum("bij,bjk->bik", {values({2, 2, 3}, -1), values({2, 3, 2}, 0.5)});
  check_einsum("bij,jk->bik", {values({2, 2, 3}, -1), values({3, 4}, 0.5)});
  check_einsum("ijk,ikl->ijl", {values({2, 2, 3}, -1), values({2, 3, 2}, 0.5)});
  check_einsum("ij->ji", {values({2, 3}, -1)});
  check_einsum("ij->i", {values({2, 3}, -1)});
  check_einsum("ij->", {values({2, 3}, -1)});
  check_einsum("i,j->ij", {values({2}, -1), values({3}, 0.5)});
  check_einsum("i,i->", {values({3}, -1), values({3}, 0.5)});
  check_einsum("ij,jk", {values({2, 3}, -1), values({3, 2}, 0.5)});
  // Labels only one input has are summed on their own; their gradient is a broadcast.
  check_einsum("ij,k->i", {values({2, 3}, -1), values({2}, 0.5)});
  check_einsum("ijk,kl->il", {values({2, 3, 2}, -1), values({2, 2}, 0.5)});
  check_einsum("ijk,kl->il", {values({2, 3, 2}, -1), values({2, 2}, 0.5)}, false);
}

TEST_CASE("Einsum gradients not supported are errors naming the node") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root, dtype::float64, {.shape = partial_shape{2, 2}});
  auto trace = ops::einsum(root.with_op_name("trace"), {x}, "ii->");
  std::vector<output> grads;
  const status st = add_symbolic_gradients(root, {trace}, {x}, &grads);
  REQUIRE_FALSE(st.ok());
  CHECK(st.message().find("trace") != std::string::npos);
  CHECK(st.message().find("repeated") != std::string::npos);
  // "..." needs the shapes at graph construction.
  auto y = ops::placeholder(root, dtype::float64);
  auto batched = ops::einsum(root.with_op_name("batched"), {y, y}, "...ij,...jk->...ik");
  const status st2 = add_symbolic_gradients(root, {batched}, {y}, &grads);
  REQUIRE_FALSE(st2.ok());
  CHECK(st2.message().find("batched") != std::string::npos);
  CHECK(st2.message().find("'...'") != std::string::npos);
}

TEST_CASE("Einsum with '...': gradients summed over the broadcast batch dims") {
  check_einsum("...ij,...jk->...ik", {values({2, 1, 2, 3}, -1), values({4, 3, 2}, 0.5)});
  check_einsum("...ij,...jk->...ik", {values({2, 3}, -1), values({2, 3, 2}, 0.5)});
  check_einsum("...ij->...ji", {values({2, 2, 3}, -1)});
  check_einsum("i...j,j->...i", {values({2, 3, 1, 4}, -1), values({4}, 0.5)});
  check_einsum("...i,...i->...", {values({3, 1, 4}, -1), values({2, 4}, 0.5)});
}
