// Einsum on CPU.
//
// The general path serves every accepted equation (graph/util/einsum_equation.hpp): each
// output element is the sum, over the values of the summed labels, of the product of the input
// elements those labels address. Every input is read through per-label strides, so a transpose
// costs nothing, a label repeated within an input (a diagonal) adds its dims' strides, and a
// broadcast batch dim of size 1 has stride 0. Output elements are spread over the intra-op
// pool.
//
// Large two-input contractions (each label once per input, nothing broadcast, no label summed
// within one input alone) take the batched-matmul path instead: x is copied to
// [batch, x-free, contracted], y to [batch, contracted, y-free], one Eigen contraction per
// batch gives [batch, x-free, y-free], and a last copy puts the output's labels in order.
#include <algorithm>
#include <vector>

#include "graph/util/einsum_equation.hpp"
#include "kernels/cpu/cwise_common.hpp"
#include "kernels/cpu/gemm.hpp"
#include "kernels/framework/kernel_registry.hpp"

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

// Below this many multiply-adds the general path's plain loop beats the copies.
inline constexpr int64_t matmul_path_min_flops = 4096;

// dst (contiguous, dims `size`) = src read with `stride` per dst dim: a transposing copy.
template <class T>
void strided_copy(const T* src, const std::vector<int64_t>& size,
                  const std::vector<int64_t>& stride, T* dst) {
  const int r = static_cast<int>(size.size());
  int64_t n = 1;
  for (int64_t d : size) n *= d;
  if (n == 0) return;
  std::vector<int64_t> idx(r, 0);
  int64_t off = 0;
  for (int64_t i = 0; i < n; ++i) {
    dst[i] = src[off];
    for (int d = r - 1; d >= 0; --d) {
      off += stride[d];
      if (++idx[d] < size[d]) break;
      off -= stride[d] * size[d];
      idx[d] = 0;
    }
  }
}

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
    if (n_in == 2 && out->num_elements() * terms >= matmul_path_min_flops &&
        contract_as_matmul(ctx, p, dims, label_stride, in0, in1, o))
      return;
    cwise::for_range(ctx, out->num_elements(), std::max<int64_t>(terms, 1),
                     double(n_in * terms * sizeof(T)), double(sizeof(T)), double(2 * terms),
                     [&](int64_t begin, int64_t end) {
                       fill(outer, inner, in0, in1, o, begin, end);
                     });
  }

 private:
  // The batched-matmul path; false (nothing written) when the equation does not fit it.
  static bool contract_as_matmul(kernel_context& ctx, const einsum::plan& p,
                                 const std::vector<std::vector<int64_t>>& dims,
                                 const std::vector<std::vector<int64_t>>& label_stride,
                                 const T* x, const T* y, T* o) {
    std::vector<int> uses(p.num_labels, 0);  // bit 0: in x, bit 1: in y, bit 2: in output
    for (int i = 0; i < 2; ++i) {
      for (size_t d = 0; d < dims[i].size(); ++d) {
        const int l = p.input_labels[i][d];
        if (uses[l] & (1 << i)) return false;                 // a diagonal
        if (dims[i][d] != p.label_size[l]) return false;      // a broadcast dim
        uses[l] |= 1 << i;
      }
    }
    for (int l : p.output_labels) uses[l] |= 4;
    std::vector<int> batch, xfree, yfree, contracted;
    for (int l = 0; l < p.num_labels; ++l) {
      switch (uses[l]) {
        case 7: batch.push_back(l); break;
        case 5: xfree.push_back(l); break;
        case 6: yfree.push_back(l); break;
        case 3: contracted.push_back(l); break;
        default: return false;  // summed within one input alone
      }
    }
    auto count = [&](const std::vector<int>& ls) {
      int64_t n = 1;
      for (int l : ls) n *= p.label_size[l];
      return n;
    };
    const int64_t nb = count(batch), m = count(xfree), k = count(contracted), n = count(yfree);
    // Packs input i in the order of the label groups given.
    auto pack = [&](int i, const T* src, std::initializer_list<const std::vector<int>*> groups,
                    tensor* dst) -> status {
      std::vector<int64_t> size, stride;
      for (const auto* g : groups)
        for (int l : *g) {
          size.push_back(p.label_size[l]);
          stride.push_back(label_stride[i][l]);
        }
      CAFLOW_ASSIGN_OR_RETURN(*dst, ctx.allocate_temp(dtype_v<T>, tensor_shape{nb * k * (i == 0 ? m : n)}));
      strided_copy(src, size, stride, dst->data<T>());
      return {};
    };
    tensor xp, yp, prod;
    if (status st = pack(0, x, {&batch, &xfree, &contracted}, &xp); !st.ok()) {
      ctx.set_status(st);
      return true;
    }
    if (status st = pack(1, y, {&batch, &contracted, &yfree}, &yp); !st.ok()) {
      ctx.set_status(st);
      return true;
    }
    auto made = ctx.allocate_temp(dtype_v<T>, tensor_shape{nb * m * n});
    if (!made.ok()) {
      ctx.set_status(made.get_status());
      return true;
    }
    prod = std::move(made).value();
    const T* xb = xp.data<T>();
    const T* yb = yp.data<T>();
    T* ob = prod.data<T>();
    const Eigen::ThreadPoolDevice* pool =
        m * n * k < parallel_eval_threshold ? nullptr : ctx.dev().eigen_cpu();
    for (int64_t b = 0; b < nb; ++b)
      gemm(xb + b * m * k, false, yb + b * k * n, false, ob + b * m * n, m, k, n, pool);
    // prod is [batch..., xfree..., yfree...]: its stride per label, read in the output's order.
    std::vector<int64_t> prod_stride(p.num_labels, 0);
    int64_t stride = 1;
    for (const auto* g : {&yfree, &xfree, &batch})
      for (auto it = g->rbegin(); it != g->rend(); ++it) {
        prod_stride[*it] = stride;
        stride *= p.label_size[*it];
      }
    std::vector<int64_t> size, read;
    for (int l : p.output_labels) {
      size.push_back(p.label_size[l]);
      read.push_back(prod_stride[l]);
    }
    strided_copy(static_cast<const T*>(ob), size, read, o);
    return true;
  }

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
