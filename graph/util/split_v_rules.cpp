#include "graph/util/split_v_rules.hpp"

#include "graph/core/shape.hpp"

namespace caflow {

status_or<std::vector<int64_t>> resolve_split_sizes(const std::vector<int64_t>& sizes,
                                                    int64_t num_split, int64_t dim) {
  if (static_cast<int64_t>(sizes.size()) != num_split)
    return errors::invalid_argument("size_splits has ", sizes.size(), " entries but num_split is ",
                                    num_split);
  std::vector<int64_t> out = sizes;
  int64_t known = 0;
  int unknown = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      if (unknown >= 0)
        return errors::invalid_argument("size_splits ", format_dims(sizes),
                                        " has more than one -1");
      unknown = static_cast<int>(i);
    } else if (sizes[i] < 0) {
      return errors::invalid_argument("size_splits ", format_dims(sizes),
                                      " has a negative size");
    } else {
      known += sizes[i];
    }
  }
  if (dim < 0) return out;
  if (unknown >= 0) {
    if (known > dim)
      return errors::invalid_argument("size_splits ", format_dims(sizes), " add up to ", known,
                                      ", more than the split dimension's ", dim);
    out[unknown] = dim - known;
  } else if (known != dim) {
    return errors::invalid_argument("size_splits ", format_dims(sizes), " add up to ", known,
                                    " but the split dimension has size ", dim);
  }
  return out;
}

}  // namespace caflow
