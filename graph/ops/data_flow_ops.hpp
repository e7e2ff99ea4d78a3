#pragma once
// Queues and gradient accumulators shared by steps and sessions (FIFOQueueV2, ConditionalAccumulator, ...).
#include "graph/scope.hpp"

namespace caflow::ops {}  // namespace caflow::ops
