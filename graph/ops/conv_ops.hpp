#pragma once
// Convolution and pooling over NHWC images.
#include "graph/scope.hpp"

namespace caflow::ops {}  // namespace caflow::ops
