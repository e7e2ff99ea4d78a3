// A peer that announces an absurd tensor (terabytes, a shape whose element count overflows, a
// negative dimension) is refused while its message or archive is read, with an error naming
// what was announced, and before a buffer for the tensor exists.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <caf/all.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "graph/ir/serialization.hpp"
#include "net/protocol.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;

namespace {

struct wire_config : caf::actor_system_config {
  wire_config() {
    add_wire_types(*this);
    set("scheduler.max-threads", 1);
  }
};

// Every tensor of the honest messages is this one: a shape nothing else in them matches.
tensor marker() { return tensor(dtype::float32, tensor_shape{7777}); }

// A wire tensor's header: dtype, rank, dims, byte count.
std::vector<char> wire_header(uint8_t type, const std::vector<int64_t>& dims, uint64_t bytes) {
  std::vector<char> buf;
  caf::binary_serializer sink{nullptr, buf};
  auto rank = static_cast<uint8_t>(dims.size());
  REQUIRE_FALSE(sink(type, rank));
  for (int64_t d : dims) REQUIRE_FALSE(sink(d));
  REQUIRE_FALSE(sink(bytes));
  return buf;
}

// `honest` with the marker's header replaced by `forged`; the marker's bytes stay behind it.
std::vector<char> splice(std::vector<char> honest, const std::vector<char>& forged) {
  const auto original = wire_header(1, {7777}, 7777 * 4);
  auto at = std::search(honest.begin(), honest.end(), original.begin(), original.end());
  REQUIRE(at != honest.end());
  at = honest.erase(at, at + static_cast<long>(original.size()));
  honest.insert(at, forged.begin(), forged.end());
  return honest;
}

template <class T>
std::string read_error(caf::actor_system& sys, const std::vector<char>& buf) {
  caf::binary_deserializer source{sys, buf};
  T value;
  auto err = source(value);
  return err ? caf::to_string(err) : std::string();
}

// What BASP makes of the bytes: CAF 0.17 reports no error when an element of a message fails
// to load, but the message comes out empty, so no actor ever sees the forged tensor.
bool read_as_message_is_refused(caf::actor_system& sys, const std::vector<char>& buf) {
  caf::binary_deserializer source{sys, buf};
  caf::message msg;
  return source(msg) || msg.empty();
}

template <class T>
void check_refusals(caf::actor_system& sys, T honest) {
  CAPTURE(caf::deep_to_string(honest));
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  REQUIRE_FALSE(sink(honest));
  REQUIRE(read_error<T>(sys, buf).empty());
  std::vector<char> as_message;
  caf::binary_serializer message_sink{sys, as_message};
  auto msg = caf::make_message(honest);
  REQUIRE_FALSE(message_sink(msg));
  REQUIRE_FALSE(read_as_message_is_refused(sys, as_message));

  const auto refused = [&](const std::vector<char>& forged, const std::string& needle) {
    const auto text = read_error<T>(sys, splice(buf, forged));
    CHECK_MESSAGE(text.find(needle) != std::string::npos, text);
    CHECK(read_as_message_is_refused(sys, splice(as_message, forged)));
  };
  // 4 TiB of float32.
  refused(wire_header(1, {1LL << 40}, 4ull << 40),
          "wire_tensor: header announces float32[1099511627776], 4398046511104 bytes: these "
          "exceed the per-message limit of 33554432 bytes");
  // An element count past 2^63: the shape itself is refused, naming the dims announced.
  refused(wire_header(2, {1LL << 32, 1LL << 32}, 0),
          "header announces float64[4294967296,4294967296]: shape with more than 2^63 elements");
  // Elements that fit in int64 but whose bytes do not fit in uint64.
  refused(wire_header(2, {1LL << 31, 1LL << 31}, 0),
          "header announces float64[2147483648,2147483648], more than 2^64 bytes");
  refused(wire_header(1, {3, -1}, 0),
          "header announces float32[3,-1]: shape dimension -1 is negative");
  // A plausible size whose bytes the message does not hold.
  refused(wire_header(1, {1 << 20}, 4 << 20), "of 4194304 announced bytes");
}

// Counts what an archive's reader asks of it.
class allocation_tally final : public allocator {
 public:
  const char* name() const override { return "counting"; }
  void* allocate(size_t bytes) override {
    ++calls;
    return default_allocator()->allocate(bytes);
  }
  void deallocate(void* p, size_t bytes) override { default_allocator()->deallocate(p, bytes); }
  std::atomic<int> calls{0};
};

// `archive` with the marker's dims (raw int64s after its rank) set to `dims`, resealed.
std::string forge_archive(const std::string& archive, std::vector<int64_t> dims) {
  int64_t original = 7777;
  const std::string needle(reinterpret_cast<const char*>(&original), sizeof original);
  std::string out = archive;
  const size_t at = out.find(needle);
  REQUIRE(at != std::string::npos);
  REQUIRE(static_cast<uint8_t>(out[at - 1]) == 1);  // the rank
  out[at - 1] = static_cast<char>(dims.size());
  out.replace(at, sizeof original,
              std::string(reinterpret_cast<const char*>(dims.data()), dims.size() * sizeof(int64_t)));
  return detail::reseal_for_testing(out);
}

}  // namespace

TEST_CASE("every message carrying tensors refuses an absurd tensor header") {
  wire_config cfg;
  caf::actor_system sys{cfg};
  // Fields set by name: these structs grow.
  check_refusals(sys, wire_tensor{marker()});
  run_graph_request graph_request;
  graph_request.graph_handle = "graph-1";
  graph_request.args = {wire_tensor{tensor::scalar<int32_t>(1)}, wire_tensor{marker()}};
  check_refusals(sys, graph_request);
  run_graph_reply graph_reply;
  graph_reply.rets = {wire_tensor{marker()}};
  check_refusals(sys, graph_reply);
  run_graph_reply carrying_sends;
  carrying_sends.sends.values = {edge_value{3, "edge", wire_tensor{marker()}}};
  carrying_sends.sends.to = {rendezvous_actor{}};
  check_refusals(sys, carrying_sends);
  edge_value edge;
  edge.key = "edge";
  edge.value = wire_tensor{marker()};
  check_refusals(sys, edge);
  run_step_request step_request;
  step_request.feed_names = {"x"};
  step_request.feeds = {wire_tensor{marker()}};
  check_refusals(sys, step_request);
  run_step_reply step_reply;
  step_reply.fetches = {wire_tensor{marker()}};
  check_refusals(sys, step_reply);
}

TEST_CASE("a chunk header announcing an absurd tensor is refused, naming it") {
  edge_chunk c;
  c.step_id = 9;
  c.key = "w->ps";
  c.type = static_cast<uint8_t>(dtype::float32);
  c.bytes.assign(64, 0);
  c.dims = {1LL << 40, 1LL << 10};
  c.total_bytes = 4ull << 50;
  auto st = check_chunk(c);
  CHECK(st.code() == error_code::resource_exhausted);
  testing::check_error(st, "edge 'w->ps': a chunk of step 9 announces float32[1099511627776,1024], "
                           "more than the 17179869184 bytes one transfer may carry");
  c.dims = {1LL << 40, -2};
  testing::check_error(check_chunk(c), "announces a bad shape [1099511627776,-2]: shape dimension "
                                       "-2 is negative");
  c.dims.assign(40, 1 << 20);
  testing::check_error(check_chunk(c), "announces a bad shape [1048576,1048576,1048576,1048576,"
                                       "1048576,1048576,1048576,1048576,1048576,...]: shape of "
                                       "rank 40 exceeds the maximum rank 8");
}

TEST_CASE("an archive announcing an absurd tensor allocates nothing for it") {
  auto alloc = std::make_shared<allocation_tally>();
  const std::string one = serialize_tensor(marker());
  const std::string list = serialize_tensors({{"a", marker()}});
  REQUIRE(deserialize_tensor(one, alloc).ok());
  REQUIRE(deserialize_tensors(list, alloc).ok());
  alloc->calls = 0;

  testing::check_error(deserialize_tensor(forge_archive(one, {1LL << 40}), alloc),
                       "float32[1099511627776] needs 4398046511104 bytes, but only");
  testing::check_error(deserialize_tensors(forge_archive(list, {1LL << 30, 1LL << 30, 4}), alloc),
                       "needs more than 2^64 bytes");
  testing::check_error(deserialize_tensor(forge_archive(one, {1LL << 32, 1LL << 32}), alloc),
                       "shape with more than 2^63 elements");
  testing::check_error(deserialize_tensor(forge_archive(one, {-4}), alloc),
                       "shape dimension -4 is negative");
  CHECK(alloc->calls == 0);
}

TEST_CASE("a bool tensor whose bytes are not all 0 or 1 is refused, whole or in chunks") {
  // Reading such a byte as bool is undefined behaviour in every kernel that would see it.
  const auto forged_bools = [](auto value, std::vector<char> honest) {
    const auto at = std::find(honest.rbegin(), honest.rend(), char{1});  // the last `true`
    REQUIRE(at != honest.rend());
    *at = 7;
    decltype(value) back;
    caf::binary_deserializer source{nullptr, honest};
    auto err = source(back);
    REQUIRE(err);
    return caf::to_string(err);
  };
  wire_tensor whole{tensor::from_vector<bool>({false, true, false})};
  std::vector<char> buf;
  caf::binary_serializer sink{nullptr, buf};
  REQUIRE_FALSE(sink(whole));
  auto text = forged_bools(wire_tensor{}, buf);
  CHECK_MESSAGE(text.find("wire_tensor: bool tensor holds byte value 7 at element 1") !=
                    std::string::npos,
                text);

  auto chunks = make_chunks(2, "k", tensor::from_vector<bool>({true, false, true, false}), 2);
  REQUIRE(chunks.size() == 2);
  std::vector<char> chunk_buf;
  caf::binary_serializer chunk_sink{nullptr, chunk_buf};
  REQUIRE_FALSE(chunk_sink(chunks[1]));
  text = forged_bools(edge_chunk{}, chunk_buf);
  CHECK_MESSAGE(text.find("edge_chunk: bool tensor holds byte value 7 at element 0") !=
                    std::string::npos,
                text);
}
