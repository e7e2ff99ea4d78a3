#pragma once
// NumPy's .npy files (format versions 1.0, 2.0 and 3.0, as numpy.lib.format defines them), the
// way TensorFlow users hand arrays to a model and take its outputs back.
//
// Read: '<f4' '<f8' '<i4' '<i8' '|u1' '|b1' (and their big-endian forms, swapped on reading),
// C or Fortran order (a Fortran-ordered array is transposed into caflow's row-major layout), any
// rank. Everything else (object arrays, structured dtypes, float16, a header that is not the dict
// numpy writes, a file shorter than its shape says) is an error naming the file and the field.
// Write: format 1.0 (2.0 when the header needs more than 64 KiB), little-endian, C order, the
// header padded so the data starts at a multiple of 64 bytes, as numpy.save writes it.
//
// Hand-written rather than through xtensor's xnpy (the one Debian library that reads .npy): it
// fixes the element type at compile time and loads into its own xarray, where a model's inputs
// arrive with any of six types, decided by the file, and end up in a caflow tensor.
#include <string>
#include <string_view>

#include "graph/core/tensor.hpp"

namespace caflow::tf {

// `origin` (a file name) starts every error message.
status_or<tensor> parse_npy(std::string_view bytes, const std::string& origin);
status_or<tensor> read_npy(const std::string& path);

// REQUIRES for these two: `t` holds one of the six element types.
// The header (magic, version, dict, padding) that precedes `t`'s elements in its file.
std::string npy_header(const tensor& t);
// The file's bytes: header then the tensor's elements.
std::string npy_bytes(const tensor& t);
// Writes to `path` + ".tmp" and renames it over `path`, so a failed write leaves no torn file.
status write_npy(const std::string& path, const tensor& t);

}  // namespace caflow::tf
