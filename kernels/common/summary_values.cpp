#include "kernels/common/summary_values.hpp"

#include <cstring>

namespace caflow::summary_values {
namespace {

// Protobuf's wire types.
constexpr int varint = 0, fixed64 = 1, length_delimited = 2, fixed32 = 5;

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void put_key(std::string& out, int field, int wire_type) {
  put_varint(out, static_cast<uint64_t>(field) << 3 | static_cast<uint64_t>(wire_type));
}

void put_bytes(std::string& out, int field, std::string_view bytes) {
  put_key(out, field, length_delimited);
  put_varint(out, bytes.size());
  out.append(bytes);
}

template <class T>
void put_fixed(std::string& out, int field, T v) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8);
  put_key(out, field, sizeof(T) == 4 ? fixed32 : fixed64);
  char raw[sizeof(T)];
  std::memcpy(raw, &v, sizeof(T));  // protobuf's fixed types are little-endian, as this host
  out.append(raw, sizeof(T));
}

void put_packed_doubles(std::string& out, int field, const std::vector<double>& v) {
  put_key(out, field, length_delimited);
  put_varint(out, v.size() * sizeof(double));
  const size_t at = out.size();
  out.resize(at + v.size() * sizeof(double));
  if (!v.empty()) std::memcpy(out.data() + at, v.data(), v.size() * sizeof(double));
}

// Summary { Value value = 1; } around one Value's fields.
std::string one_value(const std::string& value_fields) {
  std::string out;
  put_bytes(out, 1, value_fields);
  return out;
}

// Summary.Value: tag = 1, simple_value = 2, histo = 5, tensor = 8, metadata = 9.
constexpr int value_tag = 1, value_simple = 2, value_histo = 5, value_tensor = 8,
              value_metadata = 9;

std::string tensor_proto(const tensor& t) {
  std::string shape;
  for (int i = 0; i < t.rank(); ++i) {  // TensorShapeProto.dim = 2 { size = 1 }
    std::string dim;
    put_key(dim, 1, varint);
    put_varint(dim, static_cast<uint64_t>(t.dim(i)));
    put_bytes(shape, 2, dim);
  }
  std::string out;  // TensorProto: dtype = 1, tensor_shape = 2, tensor_content = 4, string_val = 8
  put_key(out, 1, varint);
  put_varint(out, static_cast<uint64_t>(tf_data_type(t.type())));
  put_bytes(out, 2, shape);
  if (t.type() == dtype::string) {
    for (int64_t i = 0; i < t.num_elements(); ++i) put_bytes(out, 8, t.string_at(i));
  } else if (t.byte_size() > 0) {
    put_bytes(out, 4, std::string_view(static_cast<const char*>(t.raw_data()), t.byte_size()));
  }
  return out;
}

// Reads protobuf fields from `bytes`; each call to next() yields one field.
class field_reader {
 public:
  explicit field_reader(std::string_view bytes) : in_(bytes) {}
  bool done() const { return in_.empty(); }
  // The next field's number and, for a length-delimited one, its bytes; other wire types are
  // skipped over. False on malformed input.
  bool next(int* field, int* wire_type, std::string_view* bytes) {
    uint64_t key = 0;
    if (!read_varint(&key)) return false;
    *field = static_cast<int>(key >> 3);
    *wire_type = static_cast<int>(key & 7);
    uint64_t n = 0;
    switch (*wire_type) {
      case varint: return read_varint(&n);
      case fixed64: return skip(8);
      case fixed32: return skip(4);
      case length_delimited:
        if (!read_varint(&n) || n > in_.size()) return false;
        *bytes = in_.substr(0, n);
        in_.remove_prefix(n);
        return true;
      default: return false;
    }
  }

 private:
  bool read_varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (in_.empty()) return false;
      const auto b = static_cast<uint8_t>(in_.front());
      in_.remove_prefix(1);
      *v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  }
  bool skip(size_t n) {
    if (in_.size() < n) return false;
    in_.remove_prefix(n);
    return true;
  }

  std::string_view in_;
};

}  // namespace

int tf_data_type(dtype t) {
  switch (t) {
    case dtype::float32: return 1;
    case dtype::float64: return 2;
    case dtype::int32: return 3;
    case dtype::uint8: return 4;
    case dtype::string: return 7;
    case dtype::int64: return 9;
    case dtype::boolean: return 10;
    case dtype::resource: return 20;
    case dtype::invalid: break;
  }
  return 0;
}

std::string scalar(std::string_view tag, float value) {
  std::string v;
  put_bytes(v, value_tag, tag);
  put_fixed(v, value_simple, value);
  return one_value(v);
}

std::string histogram_value(std::string_view tag, const histogram& h) {
  std::string histo;  // HistogramProto: min 1, max 2, num 3, sum 4, sum_squares 5, limits 6, buckets 7
  put_fixed(histo, 1, h.min);
  put_fixed(histo, 2, h.max);
  put_fixed(histo, 3, h.num);
  put_fixed(histo, 4, h.sum);
  put_fixed(histo, 5, h.sum_squares);
  put_packed_doubles(histo, 6, h.bucket_limit);
  put_packed_doubles(histo, 7, h.bucket);
  std::string v;
  put_bytes(v, value_tag, tag);
  put_bytes(v, value_histo, histo);
  return one_value(v);
}

std::string tensor_value(std::string_view tag, std::string_view metadata, const tensor& value) {
  std::string v;
  put_bytes(v, value_tag, tag);
  if (!metadata.empty()) put_bytes(v, value_metadata, metadata);
  put_bytes(v, value_tensor, tensor_proto(value));
  return one_value(v);
}

std::string metadata(std::string_view display_name, std::string_view description) {
  std::string out;  // SummaryMetadata: display_name = 2, summary_description = 3
  if (!display_name.empty()) put_bytes(out, 2, display_name);
  if (!description.empty()) put_bytes(out, 3, description);
  return out;
}

status_or<std::vector<std::string>> tags_of(std::string_view summary) {
  std::vector<std::string> tags;
  field_reader r(summary);
  while (!r.done()) {
    int field = 0, wire = 0;
    std::string_view value;
    if (!r.next(&field, &wire, &value))
      return errors::data_loss("not a serialized Summary (a malformed field)");
    if (field != 1 || wire != length_delimited) continue;  // unknown fields are kept, not read
    std::string tag;
    field_reader v(value);
    while (!v.done()) {
      int f = 0, w = 0;
      std::string_view b;
      if (!v.next(&f, &w, &b)) return errors::data_loss("not a serialized Summary (malformed Value)");
      if (f == value_tag && w == length_delimited) tag = std::string(b);
    }
    tags.push_back(std::move(tag));
  }
  return tags;
}

}  // namespace caflow::summary_values
