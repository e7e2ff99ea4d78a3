// Corrupted, truncated and forged archives: every one must give an error or a value, never a
// crash, and loading must never allocate more than the input can justify. Seeded, so a
// failure reproduces; CAPTURE prints the mutation that caused it.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>
#include <random>

#include "devices/counting_allocator.hpp"
#include "graph/ir/serialization.hpp"

using namespace caflow;

// Every operator new of the process comes through here while a watch is active, so a test can
// see the largest single request made while loading. (Tensor buffers bypass operator new; the
// tests count those with a counting_allocator.)
namespace {
std::atomic<bool> watching{false};
std::atomic<size_t> largest_request{0};

// Out of line so that GCC, inlining operator delete into a caller, does not mistake the free
// of operator new's memory for a mismatch.
[[gnu::noinline]] void release(void* p) noexcept { std::free(p); }
}  // namespace

void* operator new(std::size_t n) {
  if (watching.load(std::memory_order_relaxed)) {
    size_t seen = largest_request.load(std::memory_order_relaxed);
    while (n > seen && !largest_request.compare_exchange_weak(seen, n)) {
    }
  }
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }

namespace {

constexpr uint32_t seed = 20240611;
constexpr int mutations_per_corpus = 2000;
// Forgeries are cheap to check and find more than flips do.
constexpr int forgeries_per_corpus = 20000;

class allocation_watch {
 public:
  allocation_watch() {
    largest_request = 0;
    watching = true;
  }
  ~allocation_watch() { watching = false; }
  size_t largest() const { return largest_request.load(); }
};

// The most memory one input byte can legitimately turn into: a list item encoded in one byte
// (an uninitialized tensor, an unknown-rank shape) becomes an object of this size, in a vector
// that may have grown to twice its length. Anything above this is an unbounded allocation.
size_t allocation_bound(size_t input_bytes) {
  const size_t per_byte = 2 * std::max(sizeof(tensor), sizeof(partial_shape));
  return (64 << 10) + per_byte * input_bytes;
}

template <class T>
std::string bytes_of(T v) {
  std::string s(sizeof v, '\0');
  std::memcpy(s.data(), &v, sizeof v);
  return s;
}

tensor random_any_tensor(std::mt19937& rng) {
  const auto type = static_cast<dtype>(1 + rng() % (num_dtypes - 1));
  tensor_shape shape;
  for (int rank = static_cast<int>(rng() % 4), i = 0; i < rank; ++i) shape.add_dim(rng() % 4);
  tensor t(type, shape);
  auto* p = static_cast<uint8_t*>(t.raw_data());
  for (size_t i = 0; i < t.byte_size(); ++i)
    p[i] = type == dtype::boolean ? rng() % 2 : static_cast<uint8_t>(rng());
  return t;
}

partial_shape random_partial_shape(std::mt19937& rng) {
  const int rank = static_cast<int>(rng() % 5) - 1;
  if (rank < 0) return partial_shape::unknown();
  std::vector<int64_t> dims;
  for (int i = 0; i < rank; ++i) dims.push_back(static_cast<int64_t>(rng() % 5) - 1);
  return partial_shape(std::span<const int64_t>(dims));
}

std::string random_string(std::mt19937& rng) {
  std::string s(rng() % 6, '\0');
  for (char& c : s) c = static_cast<char>('a' + rng() % 26);
  return s;
}

template <class T, class F>
std::vector<T> random_list(std::mt19937& rng, F&& make) {
  std::vector<T> v(rng() % 4);
  for (auto&& x : v) x = make();
  return v;
}

attr_value random_attr(std::mt19937& rng, attr_type type) {
  switch (type) {
    case attr_type::none: return {};
    case attr_type::int_: return static_cast<int64_t>(rng()) - (int64_t{1} << 31);
    case attr_type::float_: return static_cast<float>(rng() % 1000) / 8;
    case attr_type::bool_: return rng() % 2 == 0;
    case attr_type::string: return random_string(rng);
    case attr_type::type: return static_cast<dtype>(1 + rng() % (num_dtypes - 1));
    case attr_type::shape: return random_partial_shape(rng);
    case attr_type::tensor: return random_any_tensor(rng);
    case attr_type::list_int:
      return random_list<int64_t>(rng, [&] { return static_cast<int64_t>(rng()); });
    case attr_type::list_float:
      return random_list<float>(rng, [&] { return static_cast<float>(rng() % 100); });
    case attr_type::list_bool: return random_list<bool>(rng, [&] { return rng() % 2 == 0; });
    case attr_type::list_string: return random_list<std::string>(rng, [&] { return random_string(rng); });
    case attr_type::list_type:
      return random_list<dtype>(rng, [&] { return static_cast<dtype>(1 + rng() % (num_dtypes - 1)); });
    case attr_type::list_shape:
      return random_list<partial_shape>(rng, [&] { return random_partial_shape(rng); });
    case attr_type::list_tensor: return random_list<tensor>(rng, [&] { return random_any_tensor(rng); });
  }
  return {};
}

// Three nodes, each with one attr of every type, data and control inputs, and devices.
graph_def random_graph(std::mt19937& rng) {
  graph_def g;
  for (int i = 0; i < 3; ++i) {
    node_def n;
    n.name = "node_" + std::to_string(i);
    n.op = random_string(rng);
    n.device = i == 1 ? "/job:ps/task:0/device:CPU:0" : "";
    for (int k = 0; k < i; ++k) n.inputs.push_back("node_" + std::to_string(k) + ":" + std::to_string(k));
    if (i == 2) n.inputs.push_back("^node_0");
    for (int t = 0; t < num_attr_types; ++t)
      n.attrs.emplace("a" + std::to_string(t), random_attr(rng, static_cast<attr_type>(t)));
    g.nodes.push_back(std::move(n));
  }
  return g;
}

// An archive and how to load it. `load` returns the value serialized again, so a mutation
// that still parses can be checked for a self-consistent value.
struct corpus {
  std::string name;
  std::string archive;
  std::function<status_or<std::string>(std::string_view, const std::shared_ptr<allocator>&)> load;
};

std::vector<corpus> corpora() {
  std::mt19937 rng(seed);
  std::vector<corpus> out;
  out.push_back({"graph", serialize_graph(random_graph(rng)),
                 [](std::string_view b, const std::shared_ptr<allocator>& a) -> status_or<std::string> {
                   auto v = deserialize_graph(b, a);
                   if (!v.ok()) return v.get_status();
                   return serialize_graph(*v);
                 }});
  out.push_back({"tensor", serialize_tensor(tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3})),
                 [](std::string_view b, const std::shared_ptr<allocator>& a) -> status_or<std::string> {
                   auto v = deserialize_tensor(b, a);
                   if (!v.ok()) return v.get_status();
                   return serialize_tensor(*v);
                 }});
  std::vector<named_tensor> list;
  for (int i = 0; i < 6; ++i) list.emplace_back(random_string(rng), random_any_tensor(rng));
  list.emplace_back("bools", tensor::from_vector<bool>({true, false, true}));
  out.push_back({"tensor list", serialize_tensors(list),
                 [](std::string_view b, const std::shared_ptr<allocator>& a) -> status_or<std::string> {
                   auto v = deserialize_tensors(b, a);
                   if (!v.ok()) return v.get_status();
                   return serialize_tensors(*v);
                 }});
  return out;
}

// Loads `bytes` under an allocation watch; checks the bounds, the error code, and that a value
// that parses serializes to an archive that parses back to the same bytes. True if it parsed.
bool probe(const corpus& c, std::string_view bytes) {
  auto tensors = std::make_shared<counting_allocator>("fuzz", default_allocator());
  status_or<std::string> reencoded = errors::internal("not run");
  size_t largest = 0;
  {
    allocation_watch watch;
    reencoded = c.load(bytes, tensors);
    largest = watch.largest();
  }
  CHECK(largest <= allocation_bound(bytes.size()));
  CHECK(tensors->stats().peak_bytes_in_use <= static_cast<int64_t>(bytes.size()));
  if (!reencoded.ok()) {
    CHECK(reencoded.get_status().code() == error_code::data_loss);
    return false;
  }
  auto again = c.load(*reencoded, default_allocator());
  REQUIRE_MESSAGE(again.ok(), again.get_status().to_string());
  CHECK(*again == *reencoded);
  return true;
}

std::string flip_bits(std::string s, std::mt19937& rng, size_t from, int bits) {
  for (int i = 0; i < bits; ++i) {
    const size_t at = from + rng() % (s.size() - from);
    s[at] = static_cast<char>(s[at] ^ (1 << (rng() % 8)));
  }
  return s;
}

// Damage to the payload of the kind that most upsets a parser: bit flips, counts and lengths
// overwritten with huge or boundary values, cuts, and inserted or deleted bytes.
std::string mutate_payload(std::string s, std::mt19937& rng, std::string& what) {
  const size_t start = detail::archive_header_size;
  const size_t at = start + rng() % (s.size() - start);
  switch (rng() % 5) {
    case 0: {
      const int bits = 1 + static_cast<int>(rng() % 4);
      what = "flip " + std::to_string(bits) + " bits";
      return flip_bits(std::move(s), rng, start, bits);
    }
    case 1: {
      static constexpr uint8_t edges[] = {0x00, 0x01, 0x02, 0x07, 0x08, 0x09, 0x7f, 0x80, 0xfe, 0xff};
      s[at] = static_cast<char>(edges[rng() % std::size(edges)]);
      what = "byte " + std::to_string(at) + " = " + std::to_string(static_cast<uint8_t>(s[at]));
      return s;
    }
    case 2: {
      static constexpr uint64_t edges[] = {0, 1, 1ULL << 31, 1ULL << 40, 1ULL << 62, ~0ULL, ~0ULL >> 1};
      const std::string word = bytes_of(edges[rng() % std::size(edges)]);
      const size_t n = std::min(word.size(), s.size() - at);
      s.replace(at, n, word.substr(0, n));
      what = "word at " + std::to_string(at);
      return s;
    }
    case 3:
      what = "cut at " + std::to_string(at);
      s.resize(at);
      return s;
    default:
      if (rng() % 2 == 0) {
        what = "insert at " + std::to_string(at);
        s.insert(at, 1 + rng() % 8, static_cast<char>(rng()));
      } else {
        what = "erase at " + std::to_string(at);
        s.erase(at, 1 + rng() % 8);
      }
      return s;
  }
}

}  // namespace

TEST_CASE("the corpora are valid archives") {
  for (const corpus& c : corpora()) {
    CAPTURE(c.name);
    CHECK(c.archive.size() > 100);
    CHECK(probe(c, c.archive));
  }
}

TEST_CASE("every truncation of an archive is refused") {
  std::mt19937 rng(seed);
  for (const corpus& c : corpora()) {
    CAPTURE(c.name);
    const size_t n = c.archive.size();
    for (int i = 0; i < std::min<int>(n, mutations_per_corpus); ++i) {
      const size_t length = n <= static_cast<size_t>(mutations_per_corpus) ? i : rng() % n;
      CAPTURE(length);
      CHECK_FALSE(probe(c, std::string_view(c.archive).substr(0, length)));
    }
  }
}

TEST_CASE("single and multi-bit flips anywhere are refused") {
  std::mt19937 rng(seed + 1);
  for (const corpus& c : corpora()) {
    CAPTURE(c.name);
    for (int i = 0; i < mutations_per_corpus; ++i) {
      const int bits = i % 2 == 0 ? 1 : 2 + static_cast<int>(rng() % 7);
      CAPTURE(i);
      CAPTURE(bits);
      CHECK_FALSE(probe(c, flip_bits(c.archive, rng, 0, bits)));
    }
  }
}

TEST_CASE("forged payloads with a valid checksum give an error or a value, within bounds") {
  std::mt19937 rng(seed + 2);
  for (const corpus& c : corpora()) {
    CAPTURE(c.name);
    int parsed = 0;
    for (int i = 0; i < forgeries_per_corpus; ++i) {
      std::string what;
      const std::string forged = detail::reseal_for_testing(mutate_payload(c.archive, rng, what));
      CAPTURE(i);
      CAPTURE(what);
      parsed += probe(c, forged) ? 1 : 0;
    }
    // Both outcomes occur: damage to tensor bytes still parses, damage to structure does not.
    CHECK(parsed > 0);
    CHECK(parsed < forgeries_per_corpus);
  }
}

TEST_CASE("an archive announcing a 2^40-element tensor is refused without allocating it") {
  auto tensors = std::make_shared<counting_allocator>("forged", default_allocator());
  const std::string values = bytes_of(1.0f) + bytes_of(2.0f) + bytes_of(3.0f);

  SUBCASE("the size fits in 64 bits") {
    std::string a = serialize_tensor(tensor::from_vector<float>({1, 2, 3}));
    const size_t dim = a.find(bytes_of<int64_t>(3) + bytes_of<uint64_t>(12) + values);
    REQUIRE(dim != std::string::npos);
    a.replace(dim, 16, bytes_of<int64_t>(1LL << 40) + bytes_of<uint64_t>(4ULL << 40));
    allocation_watch watch;
    auto r = deserialize_tensor(detail::reseal_for_testing(a), tensors);
    REQUIRE_FALSE(r.ok());
    CHECK(r.get_status().code() == error_code::data_loss);
    CHECK(r.get_status().message() ==
          "tensor archive: tensor float32[1099511627776] needs 4398046511104 bytes, but only 20 "
          "bytes are left in the archive");
    CHECK(watch.largest() < (64 << 10));
  }
  SUBCASE("the size overflows 64 bits") {
    std::string a = serialize_tensor(tensor::from_vector<float>({1, 2, 3}, {3, 1}));
    const size_t dims = a.find(bytes_of<int64_t>(3) + bytes_of<int64_t>(1) + bytes_of<uint64_t>(12));
    REQUIRE(dims != std::string::npos);
    a.replace(dims, 16, bytes_of<int64_t>(1LL << 40) + bytes_of<int64_t>(1LL << 22));
    auto r = deserialize_tensor(detail::reseal_for_testing(a), tensors);
    REQUIRE_FALSE(r.ok());
    CHECK(r.get_status().message().find("tensor float32[1099511627776,4194304] needs more than 2^64 bytes") !=
          std::string::npos);
  }
  CHECK(tensors->stats().num_allocs == 0);
}

TEST_CASE("archives announcing 2^40-byte strings or 2^40-entry lists are refused") {
  const uint64_t huge = 1ULL << 40;
  graph_def g;
  node_def n;
  n.name = "marker_name";
  n.op = "Op";
  n.attrs["ints"] = std::vector<int64_t>{11, 22, 33};
  g.nodes.push_back(n);
  const std::string graph = serialize_graph(g);

  auto refused = [](const status_or<graph_def>& r, size_t largest, const std::string& message) {
    REQUIRE_FALSE(r.ok());
    CHECK(r.get_status().code() == error_code::data_loss);
    CHECK(r.get_status().message().find(message) != std::string::npos);
    CHECK(largest < (64 << 10));
  };

  SUBCASE("a string") {
    std::string a = graph;
    const size_t length = a.find(bytes_of<uint64_t>(11) + "marker_name");
    REQUIRE(length != std::string::npos);
    a.replace(length, 8, bytes_of(huge));
    allocation_watch watch;
    auto r = deserialize_graph(detail::reseal_for_testing(a));
    refused(r, watch.largest(), "graph archive: string of 1099511627776 bytes, but only");
  }
  SUBCASE("a list(int)") {
    std::string a = graph;
    const size_t count = a.find(bytes_of<uint64_t>(3) + bytes_of<int64_t>(11));
    REQUIRE(count != std::string::npos);
    a.replace(count, 8, bytes_of(huge));
    allocation_watch watch;
    auto r = deserialize_graph(detail::reseal_for_testing(a));
    refused(r, watch.largest(), "graph archive: list of 1099511627776 entries, but only");
  }
  SUBCASE("the node list") {
    std::string a = graph;
    // The node count, node_def's class preamble (tracking flag, version 1), the first name.
    const std::string preamble("\0\x01\0\0\0", 5);
    const size_t count = a.find(bytes_of<uint64_t>(1) + preamble + bytes_of<uint64_t>(11) + "marker_name");
    REQUIRE(count != std::string::npos);
    a.replace(count, 8, bytes_of(huge));
    allocation_watch watch;
    auto r = deserialize_graph(detail::reseal_for_testing(a));
    refused(r, watch.largest(), "list of 1099511627776 entries");
  }
  SUBCASE("a tensor list") {
    std::string a = serialize_tensors({{"only", tensor::scalar<int32_t>(5)}});
    const size_t count = a.find(bytes_of<uint64_t>(1) + bytes_of<uint64_t>(4) + "only");
    REQUIRE(count != std::string::npos);
    a.replace(count, 8, bytes_of(huge));
    allocation_watch watch;
    auto r = deserialize_tensors(detail::reseal_for_testing(a));
    REQUIRE_FALSE(r.ok());
    CHECK(r.get_status().message().find("tensor list archive: list of 1099511627776 entries") !=
          std::string::npos);
    CHECK(watch.largest() < (64 << 10));
  }
}
