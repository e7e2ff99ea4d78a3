#pragma once
// Every ops:: function of the client API.
#include "graph/ops/array_ops.hpp"
#include "graph/ops/base_ops.hpp"
#include "graph/ops/conv_ops.hpp"
#include "graph/ops/data_flow_ops.hpp"
#include "graph/ops/math_ops.hpp"
#include "graph/ops/matmul_ops.hpp"
#include "graph/ops/nn_ops.hpp"
#include "graph/ops/random_ops.hpp"
#include "graph/ops/reduction_ops.hpp"
#include "graph/ops/shape_ops.hpp"
#include "graph/ops/state_ops.hpp"
#include "graph/ops/training_ops.hpp"
