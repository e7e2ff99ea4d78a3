#pragma once
// TensorFlow's OrderedCode, the key encoding whose byte order is the order of the values
// encoded: a tensor bundle names each slice of a partitioned tensor with it
// (bundle_slice_key in graph/tf/tensor_bundle.hpp), so a reader finds a slice by computing its
// key. Only the writing side is needed: keys are looked up, never parsed.
//
//   unsigned 0      -> 00                length byte, then big-endian bytes without leading 0s
//   unsigned 300    -> 02 01 2c
//   signed 5        -> 85                sign bit 1, then one 1 per extra byte, a 0, the value
//   signed -1       -> 7f                (bits complemented for negatives, two's complement)
//   signed 0x424242 -> f0 42 42 42
//   "a\0b"          -> 61 00 ff 62 00 01 (00 -> 00 ff, ff -> ff 00, then the separator 00 01)
#include <cstdint>
#include <string>
#include <string_view>

namespace caflow::tf::ordered_code {

void write_num_increasing(std::string& out, uint64_t v);
void write_signed_num_increasing(std::string& out, int64_t v);
void write_string(std::string& out, std::string_view s);

}  // namespace caflow::tf::ordered_code
