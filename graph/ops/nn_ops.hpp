#pragma once
// Neural-network ops: activations, bias, softmax and losses (see nn_ops.cpp).
#include "graph/scope.hpp"

namespace caflow::ops {}  // namespace caflow::ops
