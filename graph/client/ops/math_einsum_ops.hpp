#pragma once
// Einsum, TensorFlow's op: a sum of products over the labels of `equation`, for one or two
// inputs ("ij,jk->ik" a matrix product, "bij,bjk->bik" a batched one, "ij->ji" a transpose,
// "ii->" a trace, "ij->i" a row sum, "i,j->ij" an outer product, "...ij,...jk->...ik" with
// broadcast batch dims). See graph/util/einsum_equation.hpp for what equations are accepted;
// any other is an error naming the node. Kernel in kernels/cpu/einsum_kernel.cpp.
#include <string>
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

output einsum(const scope& s, const std::vector<output>& inputs, const std::string& equation);

}  // namespace caflow::ops
