// BatchMatMulV2 and BatchMatMul: per-batch products against a naive loop, adjoints, batch
// broadcasting, and errors naming the node.
#include <doctest/doctest.h>

#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_batch_matmul_ops.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;
using caflow::testing::run_kernel;

namespace {

// out[b] = op(x[bx]) * op(y[by]) with broadcast batch dims, the slow obvious way.
tensor naive(const tensor& x, const tensor& y, bool adj_x, bool adj_y) {
  const auto xs = x.shape().dim_vector(), ys = y.shape().dim_vector();
  const size_t xr = xs.size(), yr = ys.size(), br = std::max(xr, yr) - 2;
  std::vector<int64_t> xb(br, 1), yb(br, 1), ob(br);
  for (size_t i = 0; i < xr - 2; ++i) xb[br - (xr - 2) + i] = xs[i];
  for (size_t i = 0; i < yr - 2; ++i) yb[br - (yr - 2) + i] = ys[i];
  const int64_t m = adj_x ? xs[xr - 1] : xs[xr - 2], k = adj_x ? xs[xr - 2] : xs[xr - 1];
  const int64_t n = adj_y ? ys[yr - 2] : ys[yr - 1];
  std::vector<int64_t> out_dims;
  int64_t batches = 1;
  for (size_t i = 0; i < br; ++i) {
    ob[i] = std::max(xb[i], yb[i]);
    out_dims.push_back(ob[i]);
    batches *= ob[i];
  }
  out_dims.push_back(m);
  out_dims.push_back(n);
  std::vector<double> out(batches * m * n);
  for (int64_t b = 0; b < batches; ++b) {
    int64_t rest = b, xo = 0, yo = 0, xm = 1, ym = 1;
    for (int i = static_cast<int>(br) - 1; i >= 0; --i) {
      const int64_t idx = rest % ob[i];
      rest /= ob[i];
      xo += (xb[i] == 1 ? 0 : idx) * xm;
      yo += (yb[i] == 1 ? 0 : idx) * ym;
      xm *= xb[i];
      ym *= yb[i];
    }
    const double* xp = x.data<double>() + xo * m * k;
    const double* yp = y.data<double>() + yo * k * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t l = 0; l < k; ++l)
          acc += (adj_x ? xp[l * m + i] : xp[i * k + l]) * (adj_y ? yp[j * k + l] : yp[l * n + j]);
        out[(b * m + i) * n + j] = acc;
      }
  }
  return tensor::from_vector<double>(out, tensor_shape(std::span<const int64_t>(out_dims)));
}

void check_product(const tensor& x, const tensor& y, bool adj_x, bool adj_y) {
  auto r = run_kernel("BatchMatMulV2", {x, y}, {{"adj_x", adj_x}, {"adj_y", adj_y}});
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  check_tensor(r->at(0), naive(x, y, adj_x, adj_y), 1e-12);
}

}  // namespace

TEST_CASE("BatchMatMulV2 multiplies each batch, with adjoints") {
  const tensor x = iota<double>({2, 3, 4}, -5.0), y = iota<double>({2, 4, 2}, 1.0);
  check_product(x, y, false, false);
  check_product(iota<double>({2, 4, 3}, -2.0), y, true, false);
  check_product(x, iota<double>({2, 2, 4}, 0.5), false, true);
  check_product(iota<double>({2, 4, 3}), iota<double>({2, 2, 4}), true, true);
  // A known small case: [[1,2],[3,4]] * [[5,6],[7,8]].
  auto r = run_kernel("BatchMatMulV2", {tensor::from_vector<double>({1, 2, 3, 4}, {1, 2, 2}),
                                        tensor::from_vector<double>({5, 6, 7, 8}, {1, 2, 2})});
  REQUIRE(r.ok());
  check_tensor(r->at(0), {1, 2, 2}, std::vector<double>{19, 22, 43, 50});
}

TEST_CASE("BatchMatMulV2 broadcasts batch dims") {
  check_product(iota<double>({2, 1, 3, 2}), iota<double>({4, 2, 3}, -3.0), false, false);
  check_product(iota<double>({3, 2}), iota<double>({5, 2, 2}), false, false);
  check_product(iota<double>({2, 2, 3}), iota<double>({3, 4}), false, false);
  // A big product takes the pooled path.
  check_product(iota<double>({2, 64, 48}, -100.0), iota<double>({48, 40}, -7.0), false, false);
  auto r = run_kernel("BatchMatMulV2",
                      {iota<int32_t>({2, 2, 2}), tensor::from_vector<int32_t>({1, 0, 0, 1}, {2, 2})});
  REQUIRE(r.ok());
  check_tensor(r->at(0), iota<int32_t>({2, 2, 2}));
}

TEST_CASE("BatchMatMul (V1) needs equal batch dims") {
  auto r = run_kernel("BatchMatMul", {iota<double>({2, 2, 3}), iota<double>({2, 3, 1})});
  REQUIRE(r.ok());
  check_tensor(r->at(0), naive(iota<double>({2, 2, 3}), iota<double>({2, 3, 1}), false, false));
  check_error(run_kernel("BatchMatMul", {iota<double>({2, 2, 3}), iota<double>({1, 3, 1})}),
              "test_BatchMatMul");
}

TEST_CASE("mismatched inner or batch dims are errors naming the node") {
  auto r = run_kernel("BatchMatMulV2", {iota<double>({2, 2, 3}), iota<double>({2, 4, 1})}, {},
                      {.infer_shapes = false});
  check_error(r, "matrix size-incompatible");
  check_error(r, "test_BatchMatMulV2");
  check_error(run_kernel("BatchMatMulV2", {iota<double>({2, 2, 3}), iota<double>({3, 3, 1})}, {},
                         {.infer_shapes = false}),
              "cannot broadcast");
  check_error(run_kernel("BatchMatMulV2", {iota<double>({3}), iota<double>({3, 1})}),
              "rank at least 2");
  auto root = scope::new_root();
  ops::batch_mat_mul_v2(root.with_op_name("bmm"), ops::constant(root, iota<float>({2, 2, 3})),
                        ops::constant(root, iota<float>({3, 3, 1})));
  REQUIRE_FALSE(root.ok());
  CHECK(root.get_status().message().find("bmm") != std::string::npos);
  CHECK(root.get_status().message().find("cannot broadcast") != std::string::npos);
}
