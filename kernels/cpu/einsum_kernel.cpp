// Einsum on CPU, one general path for every accepted equation (graph/util/einsum_equation.hpp):
// each output element is the sum, over the values of the summed labels, of the product of the
// input elements those labels address. Every input is read through per-label strides, so a
// transpose costs nothing, a label repeated within an input (a diagonal) adds its dims'
// strides, and a broadcast batch dim of size 1 has stride 0. Output elements are spread over
// the intra-op pool.
#include <algorithm>
#include <vector>

#include "graph/util/einsum_equation.hpp"
#include "kernels/cpu/cwise_common.hpp"
#include "kernels/kernel_registry.hpp"

namespace caflow {
namespace {

// An odometer over some labels, carrying each input's offset along.
struct label_walk {
  std::vector<int64_t> size;                 // per walked label
  std::vector<std::vector<int64_t>> stride;  // per input, per walked label
  int64_t count() const {
    int64_t n = 1;
    for (int64_t s : size) n *= s;
    return n;
  }
};

template <class T>
class einsum_op final : public op_kernel {
 public:
  explicit einsum_op(kernel_construction& c) : op_kernel(c) {
    std::string text;
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("equation", &text));
    auto eq = einsum::parse(text, c.num_inputs());
    CAFLOW_OP_REQUIRES_OK(c, eq.get_status());
    eq_ = std::move(*eq);
  }

  void compute(kernel_context& ctx) override {
    const int n_in = ctx.num_inputs();
    std::vector<std::vector<int64_t>> dims(n_in);
    for (int i = 0; i < n_in; ++i) dims[i] = ctx.input(i).shape().dim_vector();
    auto planned = einsum::resolve(eq_, dims);
    CAFLOW_OP_REQUIRES_OK(ctx, planned.get_status());
    const einsum::plan& p = *planned;
    tensor* out = ctx.allocate_output(0, tensor_shape(p.output_dims()));
    if (out == nullptr || out->num_elements() == 0) return;

    // Each input's stride per label: the sum over its dims carrying the label (a diagonal
    // walks several at once), 0 for a dim of 1 broadcast against a larger size.
    std::vector<std::vector<int64_t>> label_stride(n_in, std::vector<int64_t>(p.num_labels, 0));
    for (int i = 0; i < n_in; ++i) {
      int64_t stride = 1;
      for (int d = static_cast<int>(dims[i].size()) - 1; d >= 0; --d) {
        const int l = p.input_labels[i][d];
        if (dims[i][d] == p.label_size[l]) label_stride[i][l] += stride;
        stride *= dims[i][d];
      }
    }
    std::vector<bool> in_output(p.num_labels, false);
    for (int l : p.output_labels) in_output[l] = true;
    label_walk outer, inner;
    outer.stride.resize(n_in);
    inner.stride.resize(n_in);
    for (int l : p.output_labels) {
      outer.size.push_back(p.label_size[l]);
      for (int i = 0; i < n_in; ++i) outer.stride[i].push_back(label_stride[i][l]);
    }
    for (int l = 0; l < p.num_labels; ++l) {
      if (in_output[l]) continue;
      inner.size.push_back(p.label_size[l]);
      for (int i = 0; i < n_in; ++i) inner.stride[i].push_back(label_stride[i][l]);
    }
    const T* in0 = ctx.input(0).data<T>();
    const T* in1 = n_in > 1 ? ctx.input(1).data<T>() : nullptr;
    T* o = out->data<T>();
    const int64_t terms = inner.count();
    cwise::for_range(ctx, out->num_elements(), std::max<int64_t>(terms, 1),
                     double(n_in * terms * sizeof(T)), double(sizeof(T)), double(2 * terms),
                     [&](int64_t begin, int64_t end) {
                       fill(outer, inner, in0, in1, o, begin, end);
                     });
  }

 private:
  static void fill(const label_walk& outer, const label_walk& inner, const T* in0,
                   const T* in1, T* o, int64_t begin, int64_t end) {
    const int ro = static_cast<int>(outer.size.size());
    const int ri = static_cast<int>(inner.size.size());
    const int64_t terms = inner.count();
    // The output index of `begin`, and each input's offset there.
    std::vector<int64_t> idx(ro, 0);
    int64_t base0 = 0, base1 = 0;
    for (int64_t rest = begin, d = ro - 1; d >= 0; --d) {
      idx[d] = rest % outer.size[d];
      rest /= outer.size[d];
      base0 += idx[d] * outer.stride[0][d];
      if (in1) base1 += idx[d] * outer.stride[1][d];
    }
    std::vector<int64_t> jdx(ri, 0);
    for (int64_t e = begin; e < end; ++e) {
      T acc = T(0);
      int64_t off0 = base0, off1 = base1;
      std::fill(jdx.begin(), jdx.end(), 0);
      for (int64_t t = 0; t < terms; ++t) {
        acc += in1 ? in0[off0] * in1[off1] : in0[off0];
        for (int d = ri - 1; d >= 0; --d) {
          off0 += inner.stride[0][d];
          if (in1) off1 += inner.stride[1][d];
          if (++jdx[d] < inner.size[d]) break;
          off0 -= inner.stride[0][d] * inner.size[d];
          if (in1) off1 -= inner.stride[1][d] * inner.size[d];
          jdx[d] = 0;
        }
      }
      o[e] = acc;
      for (int d = ro - 1; d >= 0; --d) {
        base0 += outer.stride[0][d];
        if (in1) base1 += outer.stride[1][d];
        if (++idx[d] < outer.size[d]) break;
        base0 -= outer.stride[0][d] * outer.size[d];
        if (in1) base1 -= outer.stride[1][d] * outer.size[d];
        idx[d] = 0;
      }
    }
  }

  einsum::equation eq_;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("Einsum", device_cpu, "T", einsum_op, float, double, int32_t,
                              int64_t);

}  // namespace caflow
