#pragma once
// A host kernel registered for a device with memory of its own, every arg in host memory (TF
// registers its int32 shape kernels for the GPU this way): shapes and indices are computed on
// the host without a round trip through another device. Such a kernel's outputs are a
// function of its inputs alone, which a replay checks to be the recorded ones, so it may be
// recorded (op_kernel::is_capturable) with the device work around it.
#include "kernels/framework/op_kernel.hpp"

namespace caflow {

template <class Kernel>
class host_computed final : public Kernel {
 public:
  using Kernel::Kernel;
  bool is_capturable() const override { return true; }
};

}  // namespace caflow
