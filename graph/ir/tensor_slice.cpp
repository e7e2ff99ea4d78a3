#include "graph/ir/tensor_slice.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace caflow {
namespace {

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(sep, start);
    out.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

std::optional<int64_t> to_int(std::string_view s) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace

tensor_shape tensor_slice::shape() const { return tensor_shape(std::span<const int64_t>(length)); }

bool tensor_slice::covers_all() const {
  for (int d = 0; d < full.rank(); ++d)
    if (start[d] != 0 || length[d] != full.dim(d)) return false;
  return true;
}

std::string tensor_slice::to_string() const {
  if (full.rank() == 0) return "";
  std::string out;
  for (int d = 0; d < full.rank(); ++d) (out += std::to_string(full.dim(d))) += ' ';
  for (int d = 0; d < full.rank(); ++d) {
    if (d) out += ':';
    if (start[d] == 0 && length[d] == full.dim(d)) out += '-';
    else out += std::to_string(start[d]) + "," + std::to_string(length[d]);
  }
  return out;
}

tensor_slice whole_slice(const tensor_shape& full) {
  return {full, std::vector<int64_t>(static_cast<size_t>(full.rank()), 0), full.dim_vector()};
}

tensor_slice row_slice(const tensor_shape& full, int64_t offset, int64_t rows) {
  tensor_slice s = whole_slice(full);
  s.start[0] = offset;
  s.length[0] = rows;
  return s;
}

status_or<tensor_slice> parse_shape_and_slice(std::string_view text) {
  const auto bad = [&](auto&&... why) {
    return errors::invalid_argument("shape_and_slice '", text, "': ", why...);
  };
  std::vector<std::string_view> words;
  for (std::string_view w : split(text, ' '))
    if (!w.empty()) words.push_back(w);
  if (words.size() < 2) return bad("expected the full shape's dims and then a slice spec");
  std::vector<int64_t> dims;
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    const auto d = to_int(words[i]);
    if (!d || *d < 0) return bad("'", words[i], "' is not a dimension size");
    dims.push_back(*d);
  }
  auto full = tensor_shape::make(dims);
  if (!full.ok()) return bad(full.get_status().message());
  tensor_slice s = whole_slice(*full);
  const auto extents = split(words.back(), ':');
  if (extents.size() != dims.size())
    return bad("the slice spec '", words.back(), "' has ", static_cast<int64_t>(extents.size()),
               " extents for rank ", static_cast<int64_t>(dims.size()));
  for (size_t d = 0; d < extents.size(); ++d) {
    if (extents[d] == "-") continue;
    const auto parts = split(extents[d], ',');
    const auto start = parts.size() == 2 ? to_int(parts[0]) : std::nullopt;
    const auto length = parts.size() == 2 ? to_int(parts[1]) : std::nullopt;
    if (!start || !length)
      return bad("extent '", extents[d], "' is neither '-' nor 'start,length'");
    if (*start < 0 || *length < 0 || *start > dims[d] || *length > dims[d] - *start)
      return bad("extent ", *start, ",", *length, " lies outside dimension ",
                 static_cast<int64_t>(d), " of size ", dims[d]);
    s.start[d] = *start;
    s.length[d] = *length;
  }
  return s;
}

std::optional<tensor_slice> intersect(const tensor_slice& a, const tensor_slice& b) {
  if (a.full != b.full) return std::nullopt;
  tensor_slice out = a;
  for (int d = 0; d < a.full.rank(); ++d) {
    const int64_t lo = std::max(a.start[d], b.start[d]);
    const int64_t hi = std::min(a.start[d] + a.length[d], b.start[d] + b.length[d]);
    if (hi <= lo) return std::nullopt;
    out.start[d] = lo;
    out.length[d] = hi - lo;
  }
  return out;
}

void copy_slice(const tensor& src, const tensor_slice& src_box, tensor& dst,
                const tensor_slice& dst_box, const tensor_slice& part) {
  const size_t elem = dtype_size(src.type());
  const int rank = part.full.rank();
  if (rank == 0) {
    std::memcpy(dst.raw_data(), src.raw_data(), elem);
    return;
  }
  if (part.num_elements() == 0) return;
  // Row-major strides (in elements) of both boxes.
  std::vector<int64_t> src_stride(rank, 1), dst_stride(rank, 1);
  for (int d = rank - 2; d >= 0; --d) {
    src_stride[d] = src_stride[d + 1] * src_box.length[d + 1];
    dst_stride[d] = dst_stride[d + 1] * dst_box.length[d + 1];
  }
  // One contiguous run per index of the outer dimensions, the last dimension's extent long.
  const size_t run = static_cast<size_t>(part.length[rank - 1]) * elem;
  std::vector<int64_t> index(rank, 0);  // relative to part.start, last dimension stays 0
  const auto* from = static_cast<const char*>(src.raw_data());
  auto* to = static_cast<char*>(dst.raw_data());
  while (true) {
    int64_t s = 0, t = 0;
    for (int d = 0; d < rank; ++d) {
      const int64_t at = part.start[d] + index[d];
      s += (at - src_box.start[d]) * src_stride[d];
      t += (at - dst_box.start[d]) * dst_stride[d];
    }
    std::memcpy(to + t * static_cast<int64_t>(elem), from + s * static_cast<int64_t>(elem), run);
    int d = rank - 2;
    for (; d >= 0; --d) {
      if (++index[d] < part.length[d]) break;
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace caflow
