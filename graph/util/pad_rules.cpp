#include "graph/util/pad_rules.hpp"

namespace caflow {

status_or<pad_mode> parse_mirror_mode(std::string_view mode) {
  if (mode == "REFLECT") return pad_mode::reflect;
  if (mode == "SYMMETRIC") return pad_mode::symmetric;
  return errors::invalid_argument("mode must be \"REFLECT\" or \"SYMMETRIC\", got \"", mode,
                                  "\"");
}

status check_pads(pad_mode mode, int dim, int64_t before, int64_t after, int64_t size) {
  if (before < 0 || after < 0)
    return errors::invalid_argument("paddings must be non-negative, but paddings[", dim, "] = [",
                                    before, ", ", after, "]");
  if (mode == pad_mode::constant || size < 0) return {};
  const int64_t limit = mode == pad_mode::reflect ? size - 1 : size;
  if (before > limit || after > limit)
    return errors::invalid_argument(
        "paddings[", dim, "] = [", before, ", ", after, "] must be at most ", limit,
        mode == pad_mode::reflect ? " in REFLECT mode" : " in SYMMETRIC mode",
        " for dimension ", dim, " of size ", size);
  return {};
}

}  // namespace caflow
