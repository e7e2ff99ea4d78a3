#pragma once
// The epilogue of the fused CPU kernels (_FusedConv2D, the fused depthwise convolutions,
// _FusedMatMul): y = act(y * scale[c] + offset[c]) per output channel c, applied by the
// convolution or product to each block of its output while that block is still in cache, so
// the output is written once and read back only from cache. BiasAdd is scale 1 and offset
// bias; an inference FusedBatchNorm is folded into scale = s / sqrt(var + eps) and
// offset = o - mean * scale once per step.
//
// The epilogue holds pointers into the kernel's inputs and its own scratch: it lives for one
// compute call.
#include <cstdint>
#include <vector>

#include "graph/util/fused_op_spec.hpp"
#include "kernels/framework/op_kernel.hpp"

namespace caflow {

template <class T>
class channel_epilogue {
 public:
  // Reads the args (inputs [first_arg, first_arg + spec.num_args)) of `ctx` for an output of
  // `channels` channels; the error names the arg and its shape.
  static status_or<channel_epilogue> make(const fused_op_spec& spec, const kernel_context& ctx,
                                          int first_arg, int64_t channels);

  // Applies the epilogue to `rows` rows of `count` channels starting at channel `first`, row r
  // at y + r * stride.
  void apply(T* y, int64_t rows, int64_t stride, int64_t first, int64_t count) const;
  // The common case: whole rows of every channel, packed.
  void apply_rows(T* y, int64_t rows) const { apply(y, rows, channels_, 0, channels_); }

  int64_t channels() const { return channels_; }

 private:
  int64_t channels_ = 0;
  const T* offset_ = nullptr;  // [channels]
  std::vector<T> folded_;      // FusedBatchNorm: scale then offset, 2 * channels
  const T* scale_ = nullptr;   // [channels], or null for 1
  fused_activation act_ = fused_activation::none;
  T leaky_alpha_{};
  const T* prelu_alpha_ = nullptr;  // [channels], or null with prelu_scalar_
  T prelu_scalar_{};
};

extern template class channel_epilogue<float>;
extern template class channel_epilogue<double>;

}  // namespace caflow
