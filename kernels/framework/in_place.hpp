#pragma once
// The checks a read-modify-write kernel makes before it writes a variable's bytes in place.
#include "devices/device.hpp"
#include "graph/core/tensor.hpp"

namespace caflow {

// Whether a writer holding the variable's lock may mutate `value` in place: no snapshot shares
// its bytes, no other process may read them (allocator::writable_in_place: a shared memory
// block a receiver still views), and the last snapshot's reads (on other threads) happen
// before the writes. tensor::buffer_unique() alone orders nothing: use_count() is a relaxed
// load.
bool mutable_in_place(const tensor& value);

// mutable_in_place, and `value`'s bytes are where `dev` keeps variables
// (device::variable_allocator). When not, the update writes a fresh buffer from
// dev.variable_allocator() instead, which moves the variable there.
bool update_in_place(const tensor& value, const device& dev);

// For an update that reads and writes the variable's bytes: `value` itself when
// update_in_place, else replaced by a copy at the variable's home.
void make_updatable(tensor& value, const device& dev);

}  // namespace caflow
