#include "graph/util/shape_util.hpp"

#include <cmath>
#include <limits>
#include <type_traits>

namespace caflow {

status check_reshape_dims(std::span<const int64_t> dims) {
  if (dims.size() > static_cast<size_t>(max_rank))
    return errors::invalid_argument("requested shape ", format_dims(dims), " has rank ",
                                    dims.size(), ", above the maximum ", max_rank);
  int64_t inferred = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < -1)
      return errors::invalid_argument("requested shape ", format_dims(dims),
                                      " has a negative dimension at index ", i);
    if (dims[i] == -1) {
      if (inferred >= 0)
        return errors::invalid_argument("only one dimension may be -1, not both ", inferred,
                                        " and ", i, " in requested shape ", format_dims(dims));
      inferred = static_cast<int64_t>(i);
    }
  }
  return {};
}

status_or<tensor_shape> resolve_reshape(int64_t num_elements, std::span<const int64_t> dims) {
  CAFLOW_RETURN_IF_ERROR(check_reshape_dims(dims));
  std::vector<int64_t> out(dims.begin(), dims.end());
  int inferred = -1;
  int64_t known = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) inferred = static_cast<int>(i);
    else if (__builtin_mul_overflow(known, dims[i], &known))
      return errors::invalid_argument("requested shape ", format_dims(dims),
                                      " has too many elements");
  }
  if (inferred < 0) {
    if (known != num_elements)
      return errors::invalid_argument("input to reshape has ", num_elements,
                                      " elements, but requested shape ", format_dims(dims),
                                      " has ", known);
  } else if (known == 0) {
    return errors::invalid_argument("cannot infer the -1 of requested shape ", format_dims(dims),
                                    " for ", num_elements,
                                    " elements: the other dimensions multiply to 0");
  } else if (num_elements % known != 0) {
    return errors::invalid_argument("input to reshape has ", num_elements,
                                    " elements, not a multiple of the ", known,
                                    " that requested shape ", format_dims(dims),
                                    " needs besides its -1");
  } else {
    out[inferred] = num_elements / known;
  }
  return tensor_shape(std::span<const int64_t>(out));
}

template <class T>
status_or<int64_t> range_length(T start, T limit, T delta) {
  if (delta == T{0}) return errors::invalid_argument("delta must not be 0");
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta))
      return errors::invalid_argument("start, limit and delta must be finite, got ", start,
                                      ", ", limit, " and ", delta);
  }
  if (delta > 0 ? start > limit : start < limit)
    return errors::invalid_argument("start ", start, delta > 0 ? " is above" : " is below",
                                    " limit ", limit, " although delta ", delta, " is ",
                                    delta > 0 ? "positive" : "negative");
  if constexpr (std::is_floating_point_v<T>) {
    // TF's formula, in T, so the kernel's float32 ranges have TF's lengths.
    const T length = std::ceil(std::abs((limit - start) / delta));
    if (!(length < static_cast<T>(std::numeric_limits<int64_t>::max() / 2)))
      return errors::invalid_argument("Range from ", start, " to ", limit, " by ", delta,
                                      " has too many elements");
    return static_cast<int64_t>(length);
  } else {
    // Unsigned arithmetic: the distance between two int64s may not fit in an int64.
    using U = std::make_unsigned_t<T>;
    const uint64_t distance = delta > 0 ? static_cast<uint64_t>(U(limit) - U(start))
                                        : static_cast<uint64_t>(U(start) - U(limit));
    const uint64_t step = delta > 0 ? static_cast<uint64_t>(U(delta))
                                    : static_cast<uint64_t>(U(0) - U(delta));
    const uint64_t length = distance / step + (distance % step != 0);
    if (length > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return errors::invalid_argument("Range from ", start, " to ", limit, " by ", delta,
                                      " has too many elements");
    return static_cast<int64_t>(length);
  }
}

template status_or<int64_t> range_length<float>(float, float, float);
template status_or<int64_t> range_length<double>(double, double, double);
template status_or<int64_t> range_length<int32_t>(int32_t, int32_t, int32_t);
template status_or<int64_t> range_length<int64_t>(int64_t, int64_t, int64_t);

}  // namespace caflow
