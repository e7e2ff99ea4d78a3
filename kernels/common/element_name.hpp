#pragma once
// Where an element of a tensor sits, for messages that name a bad index or value.
#include <cstdint>
#include <string>
#include <string_view>

#include "graph/core/shape.hpp"

namespace caflow {

// "name[1,2]" for the flat element k of a tensor of `shape` ("name" for a scalar).
std::string element_name(std::string_view name, const tensor_shape& shape, int64_t k);

}  // namespace caflow
