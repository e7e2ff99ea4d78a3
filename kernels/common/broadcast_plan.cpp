// Broadcast analysis for the binary element-wise kernels: kept out of the kernel templates so
// every instantiation shares one copy.
#include <algorithm>

#include "kernels/common/broadcast_plan.hpp"

namespace caflow::cwise {

status plan_broadcast(const tensor_shape& x, const tensor_shape& y, broadcast_plan* p) {
  const int rank = std::max(x.rank(), y.rank());
  std::array<int64_t, max_rank> xd{}, yd{}, od{};
  for (int i = 0; i < rank; ++i) {
    const int ix = x.rank() - rank + i, iy = y.rank() - rank + i;
    const int64_t a = ix >= 0 ? x.dim(ix) : 1;
    const int64_t b = iy >= 0 ? y.dim(iy) : 1;
    if (a == b || b == 1) {
      od[i] = a;
    } else if (a == 1) {
      od[i] = b;
    } else {
      return errors::invalid_argument("incompatible shapes for broadcasting: ", x.to_string(),
                                      " and ", y.to_string());
    }
    xd[i] = a;
    yd[i] = b;
  }
  p->out_shape = tensor_shape(std::span<const int64_t>(od.data(), static_cast<size_t>(rank)));
  const int64_t n = p->out_shape.num_elements();
  if (n == 0 || (x.num_elements() == n && y.num_elements() == n)) {
    p->how = broadcast_plan::kind::flat;
    return {};
  }
  if (x.num_elements() == 1) {
    p->how = broadcast_plan::kind::lhs_scalar;
    return {};
  }
  if (y.num_elements() == 1) {
    p->how = broadcast_plan::kind::rhs_scalar;
    return {};
  }
  // Collapse: output dims of size 1 carry nothing, and neighbouring dims where the same side
  // (x, y or neither) is broadcast behave as one dim of their product.
  enum class side { none, x, y };
  p->how = broadcast_plan::kind::general;
  p->rank = 0;
  side prev = side::none;
  for (int i = 0; i < rank; ++i) {
    if (od[i] == 1) continue;
    const side s = xd[i] == 1 ? side::x : (yd[i] == 1 ? side::y : side::none);
    if (p->rank > 0 && s == prev) {
      const int last = p->rank - 1;
      p->out_dims[last] *= od[i];
      p->x_dims[last] *= xd[i];
      p->y_dims[last] *= yd[i];
    } else {
      p->out_dims[p->rank] = od[i];
      p->x_dims[p->rank] = xd[i];
      p->y_dims[p->rank] = yd[i];
      ++p->rank;
    }
    prev = s;
  }
  return {};
}

}  // namespace caflow::cwise
