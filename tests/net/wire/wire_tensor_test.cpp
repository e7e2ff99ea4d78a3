#include <doctest/doctest.h>

#include <cstring>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "net/wire/wire_tensor.hpp"
#include "test_util/spawn_function.hpp"

using namespace caflow;

namespace {

std::vector<char> encode(const tensor& t) {
  std::vector<char> buf;
  caf::binary_serializer sink{nullptr, buf};
  wire_tensor w{t};
  REQUIRE_FALSE(inspect(sink, w));
  return buf;
}

caf::error decode(const std::vector<char>& buf, tensor& out) {
  caf::binary_deserializer source{nullptr, buf};
  wire_tensor w;
  auto err = inspect(source, w);
  out = w.value;
  return err;
}

struct wire_config : caf::actor_system_config {
  wire_config() {
    load<caf::io::middleman>();
    add_message_type<wire_tensor>("caflow::wire_tensor");
    set("scheduler.max-threads", 2);
  }
};

}  // namespace

TEST_CASE("tensors of every dtype round-trip through the binary wire format") {
  const std::vector<tensor> cases = {
      tensor::from_vector<float>({1.5f, -2, 3}, {3, 1}), tensor::from_vector<double>({1e300, -0.0}),
      tensor::scalar<int32_t>(-7),                        tensor::from_vector<int64_t>({1LL << 40}),
      tensor::from_vector<uint8_t>({0, 255}, {1, 2}),     tensor::from_vector<bool>({true, false}),
      tensor(dtype::float32, tensor_shape{4, 0}),          tensor{},
      tensor::from_strings({"summary", "", "x"}, {3, 1}), tensor::string_scalar("tag")};
  for (const tensor& t : cases) {
    auto buf = encode(t);
    tensor back;
    CHECK_FALSE(decode(buf, back));
    CHECK(back.initialized() == t.initialized());
    if (t.initialized()) CHECK(back.equals(t));
  }
  // The header is small: dtype, rank, dims and the byte count.
  CHECK(encode(tensor(dtype::float32, tensor_shape{256, 256})).size() == 2 + 2 * 8 + 8 + 256 * 256 * 4);
}

TEST_CASE("every truncation of a wire tensor is an error, never a crash") {
  auto buf = encode(tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}));
  for (size_t n = 0; n < buf.size(); ++n) {
    std::vector<char> cut(buf.begin(), buf.begin() + static_cast<long>(n));
    tensor out;
    CHECK(decode(cut, out));
  }
}

TEST_CASE("absurd headers are refused before anything is allocated") {
  const auto forged = [](uint8_t type, std::vector<int64_t> dims, uint64_t bytes) {
    std::vector<char> buf;
    caf::binary_serializer sink{nullptr, buf};
    auto rank = static_cast<uint8_t>(dims.size());
    REQUIRE_FALSE(sink(type, rank));
    for (int64_t d : dims) REQUIRE_FALSE(sink(d));
    REQUIRE_FALSE(sink(bytes));
    return buf;
  };
  const auto refused = [](const std::vector<char>& buf, const std::string& needle) {
    tensor out;
    auto err = decode(buf, out);
    REQUIRE(err);
    const std::string text = caf::to_string(err);
    CHECK_MESSAGE(text.find(needle) != std::string::npos, text);
    CHECK_FALSE(out.initialized());
  };
  refused(forged(1, {1LL << 20, 1LL << 20}, (1ull << 40) * 4), "announces");
  refused(forged(1, {1LL << 40}, 1ull << 42), "announces");
  refused(forged(2, {5LL << 20}, 40ull << 20), "exceed the per-message limit");
  refused(forged(1, {1000}, 4000), "message holds 0 of 4000 announced bytes");
  refused(forged(9, {1}, 4), "invalid dtype 9");
  refused(forged(1, {1, 1, 1, 1, 1, 1, 1, 1, 1}, 4), "rank 9 exceeds 8");
  refused(forged(1, {-3}, 4), "negative");
  refused(forged(1, {3}, 8), "announces 8 bytes");
}

TEST_CASE("in one process a message shares the tensor's buffer") {
  wire_config cfg;
  caf::actor_system sys{cfg};
  auto echo = caflow::testing::spawn_function(sys, []() -> caf::behavior {
    return {[](const wire_tensor& w) { return w; }};
  });
  tensor t = tensor::from_vector<float>({1, 2, 3});
  {
    caf::scoped_actor self{sys};
    self->request(echo, std::chrono::seconds(5), wire_tensor{t}).receive(
        [&](const wire_tensor& back) { CHECK(back.value.shares_buffer_with(t)); },
        [&](caf::error& e) { FAIL(sys.render(e)); });
  }
  caf::anon_send_exit(echo, caf::exit_reason::user_shutdown);
}

TEST_CASE("across the middleman a 16 MiB tensor arrives intact as header plus raw bytes") {
  wire_config server_cfg, client_cfg;
  caf::actor_system server{server_cfg}, client{client_cfg};
  // Answers with the sum of the float tensor it received, and the tensor itself.
  auto echo = caflow::testing::spawn_function(server, []() -> caf::behavior {
    return {[](const wire_tensor& w) { return w; }};
  });
  auto port = server.middleman().publish(echo, 0, "127.0.0.1", true);
  REQUIRE(port);
  auto remote = client.middleman().remote_actor("127.0.0.1", *port);
  REQUIRE(remote);
  tensor big(dtype::float32, tensor_shape{4 << 20});
  for (int64_t i = 0; i < big.num_elements(); ++i) big.data<float>()[i] = static_cast<float>(i % 1021);
  {
    caf::scoped_actor self{client};
    self->request(*remote, std::chrono::seconds(30), wire_tensor{big}).receive(
        [&](const wire_tensor& back) {
          CHECK_FALSE(back.value.shares_buffer_with(big));
          CHECK(back.value.equals(big));
        },
        [&](caf::error& e) { FAIL(client.render(e)); });
  }
  caf::anon_send_exit(echo, caf::exit_reason::user_shutdown);
  server.middleman().unpublish(echo, *port);
}

TEST_CASE("a string tensor whose offsets were corrupted on the wire is refused") {
  auto buf = encode(tensor::from_strings({"ab", "cde"}));
  // type, rank, one dim, the byte count, then the offsets block: corrupt the last offset.
  const size_t offsets_at = buf.size() - 5 - 3 * 8;
  const uint64_t bad = 77;
  std::memcpy(buf.data() + offsets_at + 16, &bad, sizeof bad);
  tensor back;
  auto err = decode(buf, back);
  REQUIRE(err);
  const std::string text = caf::to_string(err);
  CHECK_MESSAGE(text.find("offset 2 (77) is out of order or past the 5 string bytes") != std::string::npos,
                text);
  CHECK_FALSE(back.initialized());
}
