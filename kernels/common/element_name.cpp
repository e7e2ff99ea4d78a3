#include "kernels/common/element_name.hpp"

#include <vector>

namespace caflow {

std::string element_name(std::string_view name, const tensor_shape& shape, int64_t k) {
  if (shape.rank() == 0) return std::string(name);
  std::vector<int64_t> pos(shape.rank());
  for (int d = shape.rank() - 1; d >= 0; --d) {
    pos[d] = k % shape.dim(d);
    k /= shape.dim(d);
  }
  return std::string(name) + format_dims(pos);
}

}  // namespace caflow
