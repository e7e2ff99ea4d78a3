// Select, AddN and Tile on the GPU, with the CPU kernels' checks and messages.
#include <algorithm>
#include <vector>

#include "kernels/common/tile_checks.hpp"
#include "kernels/gpu/array_launch.hpp"
#include "kernels/gpu/gpu_op_kernel.hpp"

namespace caflow::gpu {
namespace {

template <class T>
class select_op final : public gpu_op_kernel {
 public:
  using gpu_op_kernel::gpu_op_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_GPU_INPUT(cond, ctx, g, 0);
    CAFLOW_GPU_INPUT(t, ctx, g, 1);
    CAFLOW_GPU_INPUT(e, ctx, g, 2);
    CAFLOW_OP_REQUIRES(
        ctx, t.shape() == e.shape(),
        errors::invalid_argument("'t' and 'e' must have the same shape: ", t.shape().to_string(),
                                 " vs ", e.shape().to_string()));
    const int64_t n = t.num_elements();
    int64_t per_cond = n;  // a scalar condition picks the whole of one input
    if (cond.rank() > 0 && cond.shape() == t.shape()) {
      per_cond = 1;
    } else if (cond.rank() > 0) {
      CAFLOW_OP_REQUIRES(
          ctx, cond.rank() == 1 && t.rank() >= 1 && cond.dim(0) == t.dim(0),
          errors::invalid_argument("condition must be a scalar, have the shape of 't' (",
                                   t.shape().to_string(),
                                   "), or be a vector as long as its first dimension; got ",
                                   cond.shape().to_string()));
      per_cond = t.dim(0) == 0 ? 1 : n / t.dim(0);
    }
    tensor out = allocate_output(ctx, g, 0, t.shape());
    if (!out.initialized() || n == 0) return;
    launch_select<T>(cond.data<bool>(), t.data<T>(), e.data<T>(), out.data<T>(), n,
                     std::max<int64_t>(per_cond, 1), g.compute_stream());
  }
};

template <class T>
class add_n_op final : public gpu_op_kernel {
 public:
  using gpu_op_kernel::gpu_op_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    const int count = ctx.num_inputs();
    std::vector<tensor> in;
    for (int i = 0; i < count; ++i) {
      CAFLOW_GPU_INPUT(x, ctx, g, i);
      CAFLOW_OP_REQUIRES(ctx, i == 0 || x.shape() == in[0].shape(),
                         errors::invalid_argument("inputs must have the same shape: input 0 is ",
                                                  in.empty() ? "" : in[0].shape().to_string(),
                                                  " but input ", i, " is ", x.shape().to_string()));
      in.push_back(x);
    }
    if (count == 1) {
      ctx.set_output(0, in[0]);
      return;
    }
    tensor out = allocate_output(ctx, g, 0, in[0].shape());
    if (!out.initialized()) return;
    // Eight addends per launch; later launches add theirs to the running sum.
    for (int first = 0; first < count; first += max_add_n_inputs) {
      add_n_inputs<T> batch;
      for (int k = first; k < count && batch.count < max_add_n_inputs; ++k)
        batch.p[batch.count++] = in[k].template data<T>();
      launch_add_n<T>(batch, out.data<T>(), out.num_elements(), first > 0, g.compute_stream());
    }
  }
};

template <class T>
class tile_op final : public gpu_op_kernel {
 public:
  using gpu_op_kernel::gpu_op_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_GPU_INPUT(input, ctx, g, 0);
    auto mult_t = host_input(ctx, g, 1);
    CAFLOW_OP_REQUIRES_OK(ctx, mult_t.get_status());
    const int rank = input.rank();
    auto tiled = tile_output_shape(input.shape(), *mult_t);
    CAFLOW_OP_REQUIRES_OK(ctx, tiled.get_status());
    const tensor_shape& out_shape = tiled->output;
    if (out_shape == input.shape()) {
      ctx.set_output(0, input);
      return;
    }
    CAFLOW_OP_REQUIRES(ctx, rank <= max_tile_rank,
                       errors::unimplemented("Tile on the GPU takes at most ", max_tile_rank,
                                             " dimensions, got ", rank));
    tensor out = allocate_output(ctx, g, 0, out_shape);
    if (!out.initialized() || out.num_elements() == 0) return;
    tile_dims d;
    d.rank = rank;
    int64_t stride = 1;
    for (int k = rank - 1; k >= 0; --k) {
      d.in_dims[k] = input.dim(k);
      d.out_dims[k] = out_shape.dim(k);
      d.in_strides[k] = stride;
      stride *= input.dim(k);
    }
    launch_tile<T>(input.data<T>(), out.data<T>(), out.num_elements(), d, g.compute_stream());
  }
};

}  // namespace

// Floating point only: integer values on a GPU are shapes and indices, kept in host memory.
CAFLOW_REGISTER_TYPED_KERNELS("Select", device_gpu, "T", select_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("AddN", device_gpu, "T", add_n_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("Tile", device_gpu, "T", tile_op, float, double);

}  // namespace caflow::gpu
