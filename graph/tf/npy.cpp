#include "graph/tf/npy.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <variant>
#include <vector>

namespace caflow::tf {
namespace {

constexpr std::string_view magic = "\x93NUMPY";

// The Python literals numpy's header dict holds: strings, booleans and tuples of ints.
using literal = std::variant<std::string, bool, std::vector<int64_t>>;

// A reader of the header dict `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`,
// whitespace and quotes as Python allows them.
class header_parser {
 public:
  header_parser(std::string_view text, const std::string& origin) : s_(text), origin_(origin) {}

  status_or<std::map<std::string, literal>> dict() {
    std::map<std::string, literal> out;
    CAFLOW_RETURN_IF_ERROR(expect('{'));
    while (true) {
      skip_space();
      if (peek() == '}') break;
      CAFLOW_ASSIGN_OR_RETURN(std::string key, quoted());
      CAFLOW_RETURN_IF_ERROR(expect(':'));
      CAFLOW_ASSIGN_OR_RETURN(literal value, any(key));
      if (!out.emplace(key, std::move(value)).second) return bad("the key '" + key + "' twice");
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != '}') return bad("',' or '}' after the value of '" + key + "'");
    }
    ++pos_;
    skip_space();
    if (pos_ != s_.size()) return bad("nothing after the closing '}'");
    return out;
  }

 private:
  status_or<literal> any(const std::string& key) {
    skip_space();
    const char c = peek();
    if (c == '\'' || c == '"') {
      CAFLOW_ASSIGN_OR_RETURN(std::string text, quoted());
      return literal{std::move(text)};
    }
    if (c == '(') return tuple(key);
    for (const bool b : {true, false}) {
      const std::string_view word = b ? "True" : "False";
      if (s_.substr(pos_).starts_with(word)) {
        pos_ += word.size();
        return literal{b};
      }
    }
    return bad("a string, True, False or a tuple of ints as the value of '" + key + "'");
  }

  status_or<literal> tuple(const std::string& key) {
    ++pos_;
    std::vector<int64_t> dims;
    while (true) {
      skip_space();
      if (peek() == ')') break;
      size_t end = pos_;
      while (end < s_.size() && std::isdigit(static_cast<unsigned char>(s_[end]))) ++end;
      if (end == pos_ || end - pos_ > 18) return bad("a non-negative int in '" + key + "'");
      dims.push_back(std::stoll(std::string(s_.substr(pos_, end - pos_))));
      pos_ = end;
      skip_space();
      if (peek() == ',') ++pos_;
      else if (peek() != ')') return bad("',' or ')' in '" + key + "'");
    }
    ++pos_;
    return literal{std::move(dims)};
  }

  status_or<std::string> quoted() {
    skip_space();
    const char q = peek();
    if (q != '\'' && q != '"') return bad("a quoted key");
    const size_t end = s_.find(q, pos_ + 1);
    if (end == std::string_view::npos) return bad("a closing quote");
    std::string out(s_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return out;
  }

  status expect(char c) {
    skip_space();
    if (peek() != c) return bad(std::string("'") + c + "'");
    ++pos_;
    return status::ok_status();
  }
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  status bad(const std::string& wanted) const {
    return errors::invalid_argument(origin_, ": .npy header: expected ", wanted, " at offset ", pos_,
                                    " of \"", s_, "\"");
  }

  std::string_view s_;
  const std::string& origin_;
  size_t pos_ = 0;
};

struct npy_type {
  dtype type;
  bool swap;  // stored big-endian
};

status_or<npy_type> parse_descr(const std::string& descr, const std::string& origin) {
  static const std::map<std::string, dtype, std::less<>> kinds = {
      {"f4", dtype::float32}, {"f8", dtype::float64}, {"i4", dtype::int32},
      {"i8", dtype::int64},   {"u1", dtype::uint8},   {"b1", dtype::boolean}};
  if (descr.size() == 3 && (descr[0] == '<' || descr[0] == '>' || descr[0] == '|' || descr[0] == '=')) {
    if (auto k = kinds.find(std::string_view(descr).substr(1)); k != kinds.end())
      return npy_type{k->second, descr[0] == '>' && dtype_size(k->second) > 1};
  }
  return errors::unimplemented(origin, ": .npy element type '", descr,
                               "': caflow reads <f4, <f8, <i4, <i8, |u1 and |b1 (either byte order)");
}

template <class T>
const T* get(const std::map<std::string, literal>& d, const char* key) {
  auto it = d.find(key);
  return it == d.end() ? nullptr : std::get_if<T>(&it->second);
}

void swap_bytes(char* p, size_t count, size_t width) {
  for (size_t i = 0; i < count; ++i, p += width) std::reverse(p, p + width);
}

// Fortran order to row-major: the element at multi-index (i0, ..., ik) lies at
// i0 + d0 * (i1 + d1 * (i2 + ...)) in the file.
void from_fortran(const char* src, char* dst, std::span<const int64_t> dims, size_t width) {
  const size_t rank = dims.size();
  std::vector<int64_t> index(rank, 0), stride(rank, 1);
  for (size_t j = 1; j < rank; ++j) stride[j] = stride[j - 1] * dims[j - 1];
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  for (int64_t out = 0; out < n; ++out) {
    int64_t at = 0;
    for (size_t j = 0; j < rank; ++j) at += index[j] * stride[j];
    std::memcpy(dst + out * width, src + at * width, width);
    for (size_t j = rank; j-- > 0;) {  // row-major successor
      if (++index[j] < dims[j]) break;
      index[j] = 0;
    }
  }
}

}  // namespace

status_or<tensor> parse_npy(std::string_view bytes, const std::string& origin) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != magic)
    return errors::invalid_argument(origin, ": not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<uint8_t>(bytes[6]);
  if (major < 1 || major > 3)
    return errors::unimplemented(origin, ": .npy format version ", major, ".",
                                 static_cast<int>(static_cast<uint8_t>(bytes[7])),
                                 " (caflow reads 1.0, 2.0 and 3.0)");
  const size_t len_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + len_bytes) return errors::invalid_argument(origin, ": .npy header length is cut off");
  size_t header_len = 0;
  for (size_t k = 0; k < len_bytes; ++k)
    header_len |= static_cast<size_t>(static_cast<uint8_t>(bytes[8 + k])) << (8 * k);
  const size_t data_at = 8 + len_bytes + header_len;
  if (bytes.size() < data_at)
    return errors::invalid_argument(origin, ": .npy header says ", header_len, " bytes, the file has ",
                                    bytes.size() - 8 - len_bytes, " after the magic");
  std::string_view header = bytes.substr(8 + len_bytes, header_len);
  while (!header.empty() && (header.back() == '\n' || header.back() == ' ')) header.remove_suffix(1);
  CAFLOW_ASSIGN_OR_RETURN(auto dict, header_parser(header, origin).dict());

  const auto* descr = get<std::string>(dict, "descr");
  const auto* fortran = get<bool>(dict, "fortran_order");
  const auto* dims = get<std::vector<int64_t>>(dict, "shape");
  if (descr == nullptr || fortran == nullptr || dims == nullptr)
    return errors::invalid_argument(origin, ": .npy header lacks ",
                                    descr == nullptr ? "'descr' (a string)"
                                    : fortran == nullptr ? "'fortran_order' (True or False)"
                                                         : "'shape' (a tuple of ints)",
                                    ": \"", header, "\"");
  CAFLOW_ASSIGN_OR_RETURN(npy_type type, parse_descr(*descr, origin));
  auto shape = tensor_shape::make(*dims);
  if (!shape.ok()) return errors::invalid_argument(origin, ": .npy shape: ", shape.get_status().message());

  // Checked before anything is allocated: a header may claim terabytes.
  const size_t width = dtype_size(type.type);
  const size_t have = bytes.size() - data_at;
  const auto elements = static_cast<uint64_t>(shape->num_elements());
  if (elements > have / width || elements * width != have)
    return errors::invalid_argument(origin, ": .npy data is ", have, " bytes; ", *descr, " ",
                                    shape->to_string(), " takes ",
                                    elements > UINT64_MAX / width ? std::string("more than 2^64")
                                                                  : std::to_string(elements * width));
  tensor out(type.type, *shape);
  const size_t want = out.byte_size();
  char* dst = static_cast<char*>(out.raw_data());
  if (*fortran && shape->rank() > 1) {
    from_fortran(bytes.data() + data_at, dst, shape->dims(), width);
  } else if (want > 0) {
    std::memcpy(dst, bytes.data() + data_at, want);
  }
  if (type.swap) swap_bytes(dst, static_cast<size_t>(out.num_elements()), width);
  if (type.type == dtype::boolean) {  // numpy reads any non-zero byte as True
    for (size_t i = 0; i < want; ++i) dst[i] = dst[i] != 0;
  }
  return out;
}

status_or<tensor> read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return errors::not_found(path, ": cannot open: ", std::strerror(errno));
  std::string bytes{std::istreambuf_iterator<char>(in), {}};
  if (in.bad()) return errors::data_loss(path, ": read failed: ", std::strerror(errno));
  return parse_npy(bytes, path);
}

std::string npy_header(const tensor& t) {
  static const std::map<dtype, const char*> descrs = {
      {dtype::float32, "<f4"}, {dtype::float64, "<f8"}, {dtype::int32, "<i4"},
      {dtype::int64, "<i8"},   {dtype::uint8, "|u1"},   {dtype::boolean, "|b1"}};
  // Python's tuple syntax: "()", "(3,)", "(2, 3)".
  std::string shape = "(";
  for (int i = 0; i < t.rank(); ++i) shape += (i ? ", " : "") + std::to_string(t.dim(i));
  shape += t.rank() == 1 ? ",)" : ")";
  std::string dict = std::string("{'descr': '") + descrs.at(t.type()) +
                     "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Magic, version and length, then the dict padded with spaces and a newline so that the data
  // starts 64-byte aligned; version 2.0's 4-byte length only when 2 bytes cannot hold it.
  const bool v2 = dict.size() + 1 + 10 > 65535;
  const size_t prefix = v2 ? 12 : 10;
  const size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::string out(magic);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  for (size_t k = 0; k < prefix - 8; ++k) out += static_cast<char>((dict.size() >> (8 * k)) & 0xff);
  return out + dict;
}

std::string npy_bytes(const tensor& t) {
  std::string out = npy_header(t);
  out.append(static_cast<const char*>(t.raw_data()), t.byte_size());
  return out;
}

status write_npy(const std::string& path, const tensor& t) {
  if (t.type() == dtype::invalid || t.type() == dtype::resource)
    return errors::invalid_argument(path, ": cannot write a ", dtype_name(t.type()), " tensor as .npy");
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return errors::not_found(tmp, ": cannot create: ", std::strerror(errno));
    const std::string header = npy_header(t);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(static_cast<const char*>(t.raw_data()), static_cast<std::streamsize>(t.byte_size()));
    out.flush();
    if (!out) {
      const int err = errno;
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      return errors::data_loss(tmp, ": write failed: ", std::strerror(err));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return errors::data_loss(path, ": cannot rename ", tmp, " over it: ", ec.message());
  return status::ok_status();
}

}  // namespace caflow::tf
