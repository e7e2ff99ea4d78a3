// BatchMatMul and BatchMatMulV2 on CPU: one Eigen contraction per batch index, adjoints
// expressed as the contracted dims (no transposed copy). Batches of small products are spread
// over the intra-op pool one product per task; a large product uses the pool itself.
#include <algorithm>
#include <vector>

#include "kernels/cpu/cwise_common.hpp"
#include "kernels/cpu/gemm.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

// Below this many multiply-adds a product runs on one thread.
inline constexpr int64_t small_product_flops = 32 * 1024;

// Where each output batch index reads x and y: the flat batch offsets after broadcasting.
struct batch_plan {
  tensor_shape out_shape;
  std::vector<int64_t> x_batch, y_batch;
  int64_t m = 0, k = 0, n = 0;
};

status plan_batches(const tensor_shape& xs, const tensor_shape& ys, bool adj_x, bool adj_y,
                    bool broadcast, batch_plan* p) {
  if (xs.rank() < 2 || ys.rank() < 2)
    return errors::invalid_argument("x ", xs.to_string(), " and y ", ys.to_string(),
                                    " must have rank at least 2");
  const int xr = xs.rank(), yr = ys.rank();
  p->m = xs.dim(adj_x ? xr - 1 : xr - 2);
  p->k = xs.dim(adj_x ? xr - 2 : xr - 1);
  const int64_t ky = ys.dim(adj_y ? yr - 1 : yr - 2);
  p->n = ys.dim(adj_y ? yr - 2 : yr - 1);
  if (p->k != ky)
    return errors::invalid_argument("matrix size-incompatible: x ", xs.to_string(), " and y ",
                                    ys.to_string(), " (adj_x=", adj_x, ", adj_y=", adj_y,
                                    ") contract ", p->k, " with ", ky);
  // Batch dims right-aligned, 1 where a shape has none.
  const int br = std::max(xr, yr) - 2;
  std::vector<int64_t> xb(br, 1), yb(br, 1), ob(br);
  for (int i = 0; i < xr - 2; ++i) xb[br - (xr - 2) + i] = xs.dim(i);
  for (int i = 0; i < yr - 2; ++i) yb[br - (yr - 2) + i] = ys.dim(i);
  if (!broadcast && (xr != yr || xb != yb))
    return errors::invalid_argument("x ", xs.to_string(), " and y ", ys.to_string(),
                                    " must have the same batch dimensions");
  for (int i = 0; i < br; ++i) {
    if (xb[i] != yb[i] && xb[i] != 1 && yb[i] != 1)
      return errors::invalid_argument("batch dimensions of x ", xs.to_string(), " and y ",
                                      ys.to_string(), " cannot broadcast");
    ob[i] = xb[i] == 1 ? yb[i] : xb[i];
    p->out_shape.add_dim(ob[i]);
  }
  p->out_shape.add_dim(p->m);
  p->out_shape.add_dim(p->n);
  int64_t batches = 1;
  for (int64_t d : ob) batches *= d;
  p->x_batch.resize(batches);
  p->y_batch.resize(batches);
  // Odometer over the output batch index, carrying x's and y's flat batch offsets.
  std::vector<int64_t> idx(br, 0);
  for (int64_t b = 0; b < batches; ++b) {
    int64_t xo = 0, yo = 0;
    for (int i = 0; i < br; ++i) {
      xo = xo * xb[i] + (xb[i] == 1 ? 0 : idx[i]);
      yo = yo * yb[i] + (yb[i] == 1 ? 0 : idx[i]);
    }
    p->x_batch[b] = xo;
    p->y_batch[b] = yo;
    for (int i = br - 1; i >= 0; --i) {
      if (++idx[i] < ob[i]) break;
      idx[i] = 0;
    }
  }
  return {};
}

template <class T, bool Broadcast>
class batch_mat_mul_op final : public op_kernel {
 public:
  explicit batch_mat_mul_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("adj_x", &adj_x_));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("adj_y", &adj_y_));
  }

  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    const tensor& y = ctx.input(1);
    batch_plan p;
    CAFLOW_OP_REQUIRES_OK(ctx, plan_batches(x.shape(), y.shape(), adj_x_, adj_y_, Broadcast, &p));
    tensor* out = ctx.allocate_output(0, p.out_shape);
    if (out == nullptr || out->num_elements() == 0) return;
    const int64_t m = p.m, k = p.k, n = p.n;
    const int64_t batches = static_cast<int64_t>(p.x_batch.size());
    T* o = out->data<T>();
    if (k == 0) {
      std::fill(o, o + out->num_elements(), T{0});
      return;
    }
    const T* xd = x.data<T>();
    const T* yd = y.data<T>();
    auto product = [&](int64_t b, const Eigen::ThreadPoolDevice* pool) {
      gemm(xd + p.x_batch[b] * m * k, adj_x_, yd + p.y_batch[b] * k * n, adj_y_, o + b * m * n,
           m, k, n, pool);
    };
    if (m * n * k >= small_product_flops && ctx.dev().eigen_cpu() != nullptr) {
      for (int64_t b = 0; b < batches; ++b) product(b, ctx.dev().eigen_cpu());
      return;
    }
    cwise::for_range(ctx, batches, m * n * k, double((m * k + k * n) * sizeof(T)),
                     double(m * n * sizeof(T)), double(2 * m * n * k),
                     [&](int64_t begin, int64_t end) {
                       for (int64_t b = begin; b < end; ++b) product(b, nullptr);
                     });
  }

 private:
  bool adj_x_ = false, adj_y_ = false;
};

template <class T>
using batch_mat_mul_v2_op = batch_mat_mul_op<T, true>;
template <class T>
using batch_mat_mul_v1_op = batch_mat_mul_op<T, false>;

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("BatchMatMulV2", device_cpu, "T", batch_mat_mul_v2_op, float,
                              double, int32_t, int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("BatchMatMul", device_cpu, "T", batch_mat_mul_v1_op, float, double,
                              int32_t, int64_t);

}  // namespace caflow
