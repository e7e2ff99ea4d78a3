#include "graph/tf/wire_diagnosis.hpp"

#include <google/protobuf/descriptor.h>

#include <map>

#include "graph/core/status.hpp"

namespace caflow::tf {
namespace {

namespace pb = ::google::protobuf;

// libprotobuf's own default nesting limit.
constexpr int max_depth = 100;

class wire_walker {
 public:
  explicit wire_walker(std::string_view bytes) : p_(bytes.data()), end_(bytes.data() + bytes.size()) {}

  // Walks a whole message; "" when every field reads.
  std::string walk(const pb::Descriptor& type, const std::string& path, int depth) {
    if (depth > max_depth) return at(path, "nested deeper than " + std::to_string(max_depth));
    std::map<int, int> seen;  // field number -> occurrences so far, for "[k]"
    while (p_ < end_) {
      uint64_t tag;
      if (!varint(&tag)) return at(path, "a field tag runs past the end");
      const int number = static_cast<int>(tag >> 3);
      const int wire = static_cast<int>(tag & 7);
      const pb::FieldDescriptor* f = (tag >> 3) <= 536870911 ? type.FindFieldByNumber(number) : nullptr;
      // A map entry's value is named by its key alone: attr['value'].tensor, not
      // attr['value'].value.tensor.
      std::string here = f && type.map_key() != nullptr && number == 2
                             ? path
                             : join(path, f ? f->name() : "field " + std::to_string(tag >> 3));
      if (number == 0) return at(path, "a field tag holds field number 0");
      if (f && f->is_repeated() && !f->is_map()) here += "[" + std::to_string(seen[number]++) + "]";
      std::string problem = field(f, wire, here, depth);
      if (!problem.empty()) return problem;
    }
    return {};
  }

 private:
  static std::string join(const std::string& path, const std::string& name) {
    return path.empty() ? name : path + "." + name;
  }
  static std::string at(const std::string& path, const std::string& what) {
    return (path.empty() ? std::string("message") : path) + ": " + what;
  }

  bool varint(uint64_t* out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && p_ < end_; shift += 7) {
      const uint8_t b = static_cast<uint8_t>(*p_++);
      v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) {
        *out = v;
        return true;
      }
    }
    return false;
  }

  std::string skip(size_t n, const std::string& here, const char* what) {
    const size_t left = static_cast<size_t>(end_ - p_);
    if (n > left)
      return at(here, errors::concat(what, " of ", n, " bytes runs past the end (", left,
                                     " bytes left)"));
    p_ += n;
    return {};
  }

  std::string field(const pb::FieldDescriptor* f, int wire, const std::string& here, int depth) {
    switch (wire) {
      // libprotobuf takes a known field with another wire type for an unknown field, so only
      // running past the end is an error here.
      case 0: {
        uint64_t v;
        if (!varint(&v)) return at(here, "a varint runs past the end or over 10 bytes");
        return {};
      }
      case 1: return skip(8, here, "a fixed64");
      case 5: return skip(4, here, "a fixed32");
      case 2: {
        uint64_t n;
        if (!varint(&n)) return at(here, "a length runs past the end");
        const char* start = p_;
        if (auto s = skip(n, here, "a length-delimited value"); !s.empty()) {
          // A message cut short: the deepest field that runs past the end says more.
          if (f && f->type() == pb::FieldDescriptor::TYPE_MESSAGE) {
            const std::string_view rest(start, static_cast<size_t>(end_ - start));
            const std::string path = f->is_map() ? here + "[" + map_key(rest) + "]" : here;
            wire_walker inner(rest);
            if (auto deeper = inner.walk(*f->message_type(), path, depth + 1); !deeper.empty())
              return deeper;
          }
          return s;
        }
        if (!f) return {};
        if (f->type() == pb::FieldDescriptor::TYPE_MESSAGE) {
          wire_walker inner(std::string_view(start, n));
          std::string path = here;
          if (f->is_map()) path += "[" + map_key(std::string_view(start, n)) + "]";
          return inner.walk(*f->message_type(), path, depth + 1);
        }
        if (f->type() == pb::FieldDescriptor::TYPE_STRING && !valid_utf8(std::string_view(start, n)))
          return at(here, "a string field holds bytes that are not UTF-8");
        if (f->is_packable()) {
          // A packed run: its elements must end exactly at the run's end.
          wire_walker inner(std::string_view(start, n));
          return inner.packed(*f, here);
        }
        return {};
      }
      case 3:
      case 4: return at(here, "uses protobuf groups (wire type " + std::to_string(wire) + "), which no TensorFlow message has");
      default: return at(here, "has wire type " + std::to_string(wire) + ", which protobuf does not define");
    }
  }

  static int wire_type_of(const pb::FieldDescriptor& f) {
    switch (f.type()) {
      case pb::FieldDescriptor::TYPE_DOUBLE:
      case pb::FieldDescriptor::TYPE_FIXED64:
      case pb::FieldDescriptor::TYPE_SFIXED64: return 1;
      case pb::FieldDescriptor::TYPE_FLOAT:
      case pb::FieldDescriptor::TYPE_FIXED32:
      case pb::FieldDescriptor::TYPE_SFIXED32: return 5;
      case pb::FieldDescriptor::TYPE_STRING:
      case pb::FieldDescriptor::TYPE_BYTES:
      case pb::FieldDescriptor::TYPE_MESSAGE: return 2;
      default: return 0;
    }
  }

  std::string packed(const pb::FieldDescriptor& f, const std::string& here) {
    const int wire = wire_type_of(f);
    while (p_ < end_) {
      if (wire == 0) {
        uint64_t v;
        if (!varint(&v)) return at(here, "a packed varint runs past the end of its run");
      } else if (auto s = skip(wire == 1 ? 8 : 4, here, "a packed element"); !s.empty()) {
        return s;
      }
    }
    return {};
  }

  // A map entry's key (field 1) as text, or "?" when it cannot be read.
  static std::string map_key(std::string_view entry) {
    wire_walker w(entry);
    while (w.p_ < w.end_) {
      uint64_t tag, n;
      if (!w.varint(&tag)) break;
      if ((tag & 7) != 2) {
        if ((tag & 7) == 0 && w.varint(&n)) continue;
        break;
      }
      if (!w.varint(&n) || n > static_cast<uint64_t>(w.end_ - w.p_)) break;
      if ((tag >> 3) == 1) return "'" + std::string(w.p_, n) + "'";
      w.p_ += n;
    }
    return "?";
  }

  // Lead bytes and continuations only; libprotobuf also refuses overlong forms and surrogates,
  // which then get the parser's generic message.
  static bool valid_utf8(std::string_view s) {
    for (size_t i = 0; i < s.size();) {
      const uint8_t c = static_cast<uint8_t>(s[i]);
      const int extra = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
      if (extra < 0) return false;
      for (int k = 1; k <= extra; ++k)
        if (i + k >= s.size() || (static_cast<uint8_t>(s[i + k]) >> 6) != 2) return false;
      i += static_cast<size_t>(extra) + 1;
    }
    return true;
  }

  const char* p_;
  const char* end_;
};

}  // namespace

std::string diagnose_wire_bytes(std::string_view bytes, const pb::Descriptor& type) {
  return wire_walker(bytes).walk(type, "", 0);
}

}  // namespace caflow::tf
