#include "graph/util/space_batch_rules.hpp"

namespace caflow {
namespace {

// Shared checks: block sizes, pads, and the input's rank.
status check_common(const partial_shape& input, const std::vector<int64_t>& block,
                    const std::vector<int64_t>& pads, const char* pads_name,
                    space_batch_geometry* g) {
  const size_t m = block.size();
  if (m == 0) return errors::invalid_argument("block_shape must have at least one entry");
  if (pads.size() != 2 * m)
    return errors::invalid_argument(pads_name, " must have shape [", m, ",2] to match block_shape ",
                                    format_dims(block), ", got ", pads.size(), " values");
  for (size_t i = 0; i < m; ++i) {
    if (block[i] < 1)
      return errors::invalid_argument("block_shape must be positive, got ", format_dims(block));
    if (pads[2 * i] < 0 || pads[2 * i + 1] < 0)
      return errors::invalid_argument(pads_name, " must be non-negative, but ", pads_name, "[", i,
                                      "] = [", pads[2 * i], ", ", pads[2 * i + 1], "]");
    g->before.push_back(pads[2 * i]);
    g->after.push_back(pads[2 * i + 1]);
  }
  g->block = block;
  if (input.rank_known() && input.rank() < static_cast<int>(m) + 1)
    return errors::invalid_argument("input of shape ", input.to_string(),
                                    " must have rank at least ", m + 1, " for block_shape ",
                                    format_dims(block));
  return {};
}

int64_t block_size(const std::vector<int64_t>& block) {
  int64_t p = 1;
  for (int64_t b : block) p *= b;
  return p;
}

}  // namespace

status_or<space_batch_geometry> space_to_batch_geometry(const partial_shape& input,
                                                        const std::vector<int64_t>& block,
                                                        const std::vector<int64_t>& pads) {
  space_batch_geometry g;
  CAFLOW_RETURN_IF_ERROR(check_common(input, block, pads, "paddings", &g));
  if (!input.rank_known()) return g;
  g.space = input.dim_vector();
  g.batch = g.space;
  const int64_t prod = block_size(block);
  if (g.space[0] >= 0) g.batch[0] = g.space[0] * prod;
  for (size_t i = 0; i < block.size(); ++i) {
    const int64_t d = g.space[i + 1];
    if (d < 0) continue;
    const int64_t padded = d + g.before[i] + g.after[i];
    if (padded % block[i] != 0)
      return errors::invalid_argument("padded spatial dimension ", i, " (", d, " + ", g.before[i],
                                      " + ", g.after[i], " = ", padded,
                                      ") is not divisible by block_shape[", i, "] = ", block[i],
                                      " (input shape ", input.to_string(), ")");
    g.batch[i + 1] = padded / block[i];
  }
  return g;
}

status_or<space_batch_geometry> batch_to_space_geometry(const partial_shape& input,
                                                        const std::vector<int64_t>& block,
                                                        const std::vector<int64_t>& crops) {
  space_batch_geometry g;
  CAFLOW_RETURN_IF_ERROR(check_common(input, block, crops, "crops", &g));
  if (!input.rank_known()) return g;
  g.batch = input.dim_vector();
  g.space = g.batch;
  const int64_t prod = block_size(block);
  if (g.batch[0] >= 0) {
    if (g.batch[0] % prod != 0)
      return errors::invalid_argument("input batch dimension ", g.batch[0],
                                      " is not divisible by the product of block_shape ",
                                      format_dims(block), " (", prod, "); input shape ",
                                      input.to_string());
    g.space[0] = g.batch[0] / prod;
  }
  for (size_t i = 0; i < block.size(); ++i) {
    const int64_t d = g.batch[i + 1];
    if (d < 0) continue;
    const int64_t full = d * block[i];
    if (g.before[i] + g.after[i] > full)
      return errors::invalid_argument("crops[", i, "] = [", g.before[i], ", ", g.after[i],
                                      "] exceed spatial dimension ", i, " of size ", full,
                                      " (input shape ", input.to_string(), ", block_shape ",
                                      format_dims(block), ")");
    g.space[i + 1] = full - g.before[i] - g.after[i];
  }
  return g;
}

}  // namespace caflow
