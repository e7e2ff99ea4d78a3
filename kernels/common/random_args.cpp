#include "kernels/common/random_args.hpp"

#include <array>
#include <random>
#include <span>

namespace caflow {

namespace {

// The op allows only int32 and int64 shape tensors.
int64_t shape_entry(const tensor& t, int64_t i) {
  return t.type() == dtype::int32 ? int64_t{t.data<int32_t>()[i]} : t.data<int64_t>()[i];
}

uint64_t seed_from_device() {
  std::random_device rd;
  const uint64_t hi = rd();
  return (hi << 32) | rd();
}

}  // namespace

status random_output_shape(const tensor& t, tensor_shape* out) {
  if (t.rank() != 1)
    return errors::invalid_argument("shape must be a vector of dims, got a tensor of shape ",
                                    t.shape().to_string());
  if (t.type() != dtype::int32 && t.type() != dtype::int64)
    return errors::invalid_argument("shape must be int32 or int64, got ", dtype_name(t.type()));
  const int64_t rank = t.num_elements();
  if (rank > max_rank)
    return errors::invalid_argument("shape has ", rank, " dims, more than the maximum rank ",
                                    max_rank);
  std::array<int64_t, max_rank> dims{};
  for (int64_t i = 0; i < rank; ++i) {
    dims[i] = shape_entry(t, i);
    if (dims[i] < 0)
      return errors::invalid_argument("shape dim ", i, " is ", dims[i],
                                      "; dims must be non-negative");
  }
  CAFLOW_ASSIGN_OR_RETURN(
      *out, tensor_shape::make(std::span<const int64_t>(dims.data(), static_cast<size_t>(rank))));
  return {};
}

random_seeds resolve_random_seeds(int64_t seed, int64_t seed2) {
  if (seed == 0 && seed2 == 0) return {seed_from_device(), seed_from_device()};
  return {static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2)};
}

}  // namespace caflow
