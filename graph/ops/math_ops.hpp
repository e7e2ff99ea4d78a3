#pragma once
#include "graph/scope.hpp"

namespace caflow::ops {}  // namespace caflow::ops
