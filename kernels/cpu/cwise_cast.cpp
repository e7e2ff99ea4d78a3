// Cast between every pair of caflow's dtypes on CPU, one kernel per (SrcT, DstT), converting
// as kernels/common/cast_value.hpp says.
#include <type_traits>

#include "kernels/common/cast_value.hpp"
#include "kernels/cpu/cwise_common.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow::cwise {
namespace {

template <class Src, class Dst>
class cast_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    if constexpr (std::is_same_v<Src, Dst>) {
      ctx.set_output(0, x);  // same dtype: share the bytes
    } else {
      tensor* out = ctx.allocate_output(0, x.shape());
      if (out == nullptr) return;
      const Src* in = x.data<Src>();
      Dst* o = out->data<Dst>();
      for_range(ctx, x.num_elements(), sizeof(Src), sizeof(Dst), 1,
                [=](int64_t begin, int64_t end) {
                  for (int64_t i = begin; i < end; ++i) o[i] = cast_value<Dst>(in[i]);
                });
    }
  }
};

const typed_kernel_registrar2<cast_op, all_dtypes, all_dtypes> cast_kernels("Cast", device_cpu,
                                                                            "SrcT", "DstT");

}  // namespace
}  // namespace caflow::cwise
