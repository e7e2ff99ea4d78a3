#include "kernels/cpu/fused_epilogue.hpp"

#include <algorithm>
#include <cmath>

namespace caflow {
namespace {

// One activation per loop, chosen once per call: the compiler vectorizes the cheap ones.
template <fused_activation A, class T>
inline T activate(T v, T leaky_alpha, T prelu_alpha) {
  if constexpr (A == fused_activation::relu) return v > T(0) ? v : T(0);
  if constexpr (A == fused_activation::relu6) return std::min(std::max(v, T(0)), T(6));
  if constexpr (A == fused_activation::elu) return v > T(0) ? v : std::expm1(v);
  if constexpr (A == fused_activation::leaky_relu) return v > T(0) ? v : v * leaky_alpha;
  if constexpr (A == fused_activation::sigmoid) return T(1) / (T(1) + std::exp(-v));
  if constexpr (A == fused_activation::tanh) return std::tanh(v);
  if constexpr (A == fused_activation::prelu) return v > T(0) ? v : v * prelu_alpha;
  return v;
}

template <fused_activation A, class T>
void run(T* __restrict y, int64_t rows, int64_t stride, int64_t count,
         const T* __restrict scale, const T* __restrict offset, T leaky_alpha,
         const T* __restrict prelu, T prelu_scalar) {
  for (int64_t r = 0; r < rows; ++r) {
    T* __restrict row = y + r * stride;
    if (scale != nullptr) {
      for (int64_t c = 0; c < count; ++c)
        row[c] = activate<A>(row[c] * scale[c] + offset[c], leaky_alpha,
                             prelu ? prelu[c] : prelu_scalar);
    } else {
      for (int64_t c = 0; c < count; ++c)
        row[c] = activate<A>(row[c] + offset[c], leaky_alpha, prelu ? prelu[c] : prelu_scalar);
    }
  }
}

template <class T>
status_or<const T*> channel_arg(const kernel_context& ctx, int i, const char* name,
                                int64_t channels) {
  const tensor& t = ctx.input(i);
  if (t.rank() != 1 || t.dim(0) != channels)
    return errors::invalid_argument(name, " must be a vector of the output's ", channels,
                                    " channels, got shape ", t.shape().to_string());
  return t.data<T>();
}

}  // namespace

template <class T>
status_or<channel_epilogue<T>> channel_epilogue<T>::make(const fused_op_spec& spec,
                                                        const kernel_context& ctx, int first_arg,
                                                        int64_t channels) {
  channel_epilogue e;
  e.channels_ = channels;
  e.act_ = spec.activation;
  e.leaky_alpha_ = static_cast<T>(spec.leakyrelu_alpha);
  if (spec.base == fused_base::bias_add) {
    CAFLOW_ASSIGN_OR_RETURN(e.offset_, channel_arg<T>(ctx, first_arg, "bias", channels));
  } else {
    const T* p[4];
    static constexpr const char* names[] = {"scale", "offset", "mean", "variance"};
    for (int a = 0; a < 4; ++a) {
      CAFLOW_ASSIGN_OR_RETURN(p[a], channel_arg<T>(ctx, first_arg + a, names[a], channels));
    }
    e.folded_.resize(static_cast<size_t>(2 * channels));
    const T eps = static_cast<T>(spec.epsilon);
    for (int64_t c = 0; c < channels; ++c) {
      const T s = p[0][c] / std::sqrt(p[3][c] + eps);
      e.folded_[c] = s;
      e.folded_[channels + c] = p[1][c] - p[2][c] * s;
    }
  }
  if (spec.has_prelu()) {
    const tensor& alpha = ctx.input(first_arg + spec.channel_args());
    const tensor_shape& a = alpha.shape();
    if (a.num_elements() == 1) {
      e.prelu_scalar_ = alpha.data<T>()[0];
    } else if (a.num_elements() == channels && a.rank() >= 1 && a.dim(a.rank() - 1) == channels) {
      e.prelu_alpha_ = alpha.data<T>();
    } else {
      return errors::unimplemented(
          "Prelu's alpha must be a scalar or hold one value per output channel (", channels,
          "), got shape ", a.to_string());
    }
  }
  return e;
}

template <class T>
void channel_epilogue<T>::apply(T* y, int64_t rows, int64_t stride, int64_t first,
                                int64_t count) const {
  // The folded batch norm lives in folded_, whose buffer moves with the epilogue.
  const T* scale = folded_.empty() ? nullptr : folded_.data() + first;
  const T* offset = (folded_.empty() ? offset_ : folded_.data() + channels_) + first;
  const T* prelu = prelu_alpha_ ? prelu_alpha_ + first : nullptr;
  const auto go = [&]<fused_activation A>() {
    run<A, T>(y, rows, stride, count, scale, offset, leaky_alpha_, prelu, prelu_scalar_);
  };
  switch (act_) {
    case fused_activation::none: return go.template operator()<fused_activation::none>();
    case fused_activation::relu: return go.template operator()<fused_activation::relu>();
    case fused_activation::relu6: return go.template operator()<fused_activation::relu6>();
    case fused_activation::elu: return go.template operator()<fused_activation::elu>();
    case fused_activation::leaky_relu:
      return go.template operator()<fused_activation::leaky_relu>();
    case fused_activation::sigmoid: return go.template operator()<fused_activation::sigmoid>();
    case fused_activation::tanh: return go.template operator()<fused_activation::tanh>();
    case fused_activation::prelu: return go.template operator()<fused_activation::prelu>();
  }
}

template class channel_epilogue<float>;
template class channel_epilogue<double>;

}  // namespace caflow
