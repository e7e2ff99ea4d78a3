// Where (one input): the coordinates of the true / non-zero elements, row-major. Two passes:
// count, then write each hit's multi-index.
#include <vector>

#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

template <class T>
class where_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    const T* v = x.data<T>();
    const int64_t n = x.num_elements();
    int64_t hits = 0;
    for (int64_t i = 0; i < n; ++i) hits += v[i] != T{0};
    const int rank = x.rank();
    tensor* out = ctx.allocate_output(0, tensor_shape{hits, rank});
    if (!out || hits == 0 || rank == 0) return;
    int64_t* row = out->data<int64_t>();
    std::array<int64_t, max_rank> idx{};
    for (int64_t i = 0; i < n; ++i) {
      if (v[i] != T{0}) {
        std::copy_n(idx.begin(), rank, row);
        row += rank;
      }
      for (int k = rank - 1; k >= 0; --k) {
        if (++idx[k] < x.dim(k)) break;
        idx[k] = 0;
      }
    }
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Where", device_cpu, "T", where_op, float, double, int32_t, int64_t,
                              uint8_t, bool);

}  // namespace caflow
