#pragma once
// Optimizer update ops (ApplyGradientDescent, ApplyAdam, ...): each updates a variable in place on its own device.
#include "graph/scope.hpp"

namespace caflow::ops {}  // namespace caflow::ops
