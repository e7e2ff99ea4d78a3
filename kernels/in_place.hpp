#pragma once
// The check a read-modify-write kernel makes before it writes a variable's bytes in place.
#include "graph/core/tensor.hpp"

namespace caflow {

// Whether a writer holding the variable's lock may mutate `value` in place: no snapshot shares
// its bytes, and the last snapshot's reads (on other threads) happen before the writes.
// tensor::buffer_unique() alone orders nothing: use_count() is a relaxed load.
bool mutable_in_place(const tensor& value);

}  // namespace caflow
