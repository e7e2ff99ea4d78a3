// The bulk channel: big cut-edge tensors between processes over a TCP connection of their own
// (net/bulk/bulk_sender.hpp, net/bulk/bulk_receiver.hpp, net/bulk/bulk_frame.hpp). A recording actor
// stands in for a rendezvous actor and shows how each value arrived: whole over the channel,
// or in chunks through CAF when the channel is refused or unreachable. Two workers moving a cut
// edge over it: actors_chunked_transfer_test.
#include <doctest/doctest.h>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "net/bulk/bulk_receiver.hpp"
#include "net/bulk/bulk_sender.hpp"
#include "net/security/basp_guard.hpp"
#include "net/bulk/bulk_frame.hpp"
#include "net/wire/chunk_assembler.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/two_task_master.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using namespace caflow::testing::two_tasks;

namespace {

// What a recording actor received: whole values and chunks, in arrival order.
struct arrivals {
  std::mutex mu;
  std::condition_variable changed;
  std::vector<edge_value> pushed;
  std::vector<std::pair<int64_t, step_error>> aborted;  // step, root cause
  std::vector<edge_chunk> chunks;
  chunk_assembler assembler;
  std::vector<tensor> assembled;

  // Waits until `n` values arrived either way (or were refused); false after 10 s (stretched
  // under TSan).
  bool wait_for(size_t n) {
    std::unique_lock<std::mutex> lock(mu);
    return changed.wait_for(lock, scaled(std::chrono::milliseconds(10000)),
                            [&] { return pushed.size() + assembled.size() + aborted.size() >= n; });
  }
};

rendezvous_actor::behavior_type recorder(rendezvous_actor::pointer, std::shared_ptr<arrivals> log) {
  return {
      [log](cf_push_atom, const edge_value& v) {
        std::lock_guard<std::mutex> lock(log->mu);
        log->pushed.push_back(v);
        log->changed.notify_all();
      },
      [log](cf_abort_atom, int64_t step_id, const step_error& root_cause) {
        std::lock_guard<std::mutex> lock(log->mu);
        log->aborted.emplace_back(step_id, root_cause);
        log->changed.notify_all();
      },
      [log](cf_chunk_atom, const edge_chunk& c) {
        std::lock_guard<std::mutex> lock(log->mu);
        log->chunks.push_back(c);
        auto whole = log->assembler.take(c);  // checked in the test case, not on this thread
        if (whole.ok() && whole->initialized()) log->assembled.push_back(*whole);
        log->changed.notify_all();
      },
      [](cf_shm_atom, const edge_shm&) {},
      [](cf_batch_atom, const edge_batch&) {},
      [](cf_cleanup_atom, int64_t) {},
  };
}

// 10 MiB of int32 counting up from `first`: a byte out of place shows.
tensor counting(int32_t first) {
  tensor t = tensor::filled<int32_t>(tensor_shape{5, 1 << 19}, 0);
  auto* p = static_cast<int32_t*>(t.raw_data());
  for (int64_t i = 0; i < t.num_elements(); ++i) p[i] = first + static_cast<int32_t>(i);
  return t;
}

bool same_bytes(const tensor& a, const tensor& b) {
  return a.type() == b.type() && a.shape() == b.shape() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) == 0;
}

struct channel_fixture {
  test_config cfg;
  caf::actor_system sys{cfg};
  std::shared_ptr<arrivals> log = std::make_shared<arrivals>();
  rendezvous_actor rendezvous = sys.spawn(recorder, log);
  std::unique_ptr<bulk_receiver> receiver;

  channel_fixture() {
    auto r = bulk_receiver::start("127.0.0.1", "test");
    REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
    receiver = std::move(r).value();
    receiver->route(rendezvous);
  }
  // A raw connection that showed the token and was accepted, for writing frames by hand.
  socket_fd handshake() {
    auto s = connect_to("127.0.0.1", receiver->endpoint().port, std::chrono::seconds(5));
    REQUIRE(s.ok());
    std::string token = receiver->endpoint().token;
    iovec hello{token.data(), token.size()};
    REQUIRE(write_all(*s, std::span<iovec>(&hello, 1)).ok());
    char answer = 0;
    REQUIRE(read_exact(*s, &answer, 1));
    CHECK(answer == bulk_accepted);
    return std::move(s).value();
  }
  ~channel_fixture() {
    receiver.reset();
    caf::anon_send_exit(rendezvous, caf::exit_reason::user_shutdown);
  }
};

}  // namespace

TEST_CASE("bulk frames: a header survives encoding; a bad one is refused before allocation") {
  const bulk_header h{.actor_id = 42, .step_id = -7, .key = "a;b;edge:0",
                      .type = static_cast<uint8_t>(dtype::float32),
                      .dims = {3, 1 << 20}, .total_bytes = 3ull << 22};
  const std::vector<char> bytes = encode_bulk_header(h);
  auto size = parse_bulk_prefix(std::span<const char, bulk_prefix_bytes>(bytes.data(), 8));
  REQUIRE_MESSAGE(size.ok(), size.get_status().to_string());
  REQUIRE(*size == bytes.size() - bulk_prefix_bytes);
  auto back = parse_bulk_header(std::span<const char>(bytes).subspan(bulk_prefix_bytes));
  REQUIRE_MESSAGE(back.ok(), back.get_status().to_string());
  CHECK(back->actor_id == 42);
  CHECK(back->step_id == -7);
  CHECK(back->key == "a;b;edge:0");
  CHECK(back->dims == std::vector<int64_t>{3, 1 << 20});
  CHECK(back->total_bytes == 3ull << 22);

  std::vector<char> wrong_magic = bytes;
  wrong_magic[0] ^= 0x55;
  check_error(parse_bulk_prefix(std::span<const char, bulk_prefix_bytes>(wrong_magic.data(), 8)),
              "bulk transfer: bad magic number");
  std::vector<char> huge_header = bytes;
  const uint32_t too_big = max_bulk_header_bytes + 1;
  std::memcpy(huge_header.data() + 4, &too_big, 4);
  check_error(parse_bulk_prefix(std::span<const char, bulk_prefix_bytes>(huge_header.data(), 8)),
              "bulk transfer: a header of 65537 bytes");

  bulk_header absurd = h;
  absurd.dims = {int64_t{1} << 40};
  absurd.total_bytes = uint64_t{4} << 40;
  auto refused = encode_bulk_header(absurd);
  check_error(parse_bulk_header(std::span<const char>(refused).subspan(bulk_prefix_bytes)),
              "edge 'a;b;edge:0': a bulk transfer of step -7 announces float32[1099511627776], "
              "more than the 17179869184 bytes one transfer may carry");
  bulk_header mismatched = h;
  mismatched.total_bytes = 12;
  auto wrong_count = encode_bulk_header(mismatched);
  check_error(parse_bulk_header(std::span<const char>(wrong_count).subspan(bulk_prefix_bytes)),
              "announces float32[3,1048576] as 12 bytes, not 12582912");
  auto cut = std::span<const char>(bytes).subspan(bulk_prefix_bytes);
  check_error(parse_bulk_header(cut.first(cut.size() - 3)), "does not hold rank 2 and a key of");
}

TEST_CASE("a big tensor crosses the bulk channel whole, straight into a buffer of its own") {
  channel_fixture f;
  bulk_sender sender("test", nullptr);
  const tensor a = counting(0), b = counting(1000);
  sender.send(f.receiver->endpoint(), f.rendezvous, 5, "k", a);
  sender.send(f.receiver->endpoint(), f.rendezvous, 6, "k", b);
  REQUIRE(f.log->wait_for(2));
  std::lock_guard<std::mutex> lock(f.log->mu);
  REQUIRE(f.log->pushed.size() == 2);
  CHECK(f.log->chunks.empty());
  CHECK(f.log->pushed[0].step_id == 5);
  CHECK(f.log->pushed[1].step_id == 6);
  CHECK(f.log->pushed[0].key == "k");
  CHECK(same_bytes(f.log->pushed[0].value.value, a));
  CHECK(same_bytes(f.log->pushed[1].value.value, b));
  CHECK_FALSE(f.log->pushed[0].value.value.shares_buffer_with(a));
  CHECK(f.receiver->delivered() == 2);
}

TEST_CASE("a wrong token or an unreachable peer: the tensor goes through CAF in chunks") {
  channel_fixture f;
  bulk_sender sender("test", nullptr);
  bulk_endpoint at = f.receiver->endpoint();
  SUBCASE("wrong token") { at.token[0] ^= 1; }
  SUBCASE("nobody listens") {
    auto closed = listen_on("127.0.0.1", 0);
    REQUIRE(closed.ok());
    at.port = bound_port(*closed);  // free again once `closed` goes
  }
  const tensor a = counting(7), b = counting(8);
  sender.send(at, f.rendezvous, 1, "k", a);
  sender.send(at, f.rendezvous, 2, "k", b);
  REQUIRE(f.log->wait_for(2));
  std::lock_guard<std::mutex> lock(f.log->mu);
  CHECK(f.log->pushed.empty());
  CHECK(f.log->chunks.size() == 6);  // 10 MiB in 4 MiB chunks, twice
  REQUIRE(f.log->assembled.size() == 2);
  CHECK(same_bytes(f.log->assembled[0], a));
  CHECK(same_bytes(f.log->assembled[1], b));
  CHECK(f.receiver->delivered() == 0);
}

TEST_CASE("a link given up is tried again after its pause: values take it once it answers") {
  // A hand-made receiver on one port: it refuses the first connection's token, then accepts
  // the next and reads one whole frame from it.
  channel_fixture f;
  auto listener = listen_on("127.0.0.1", 0);
  REQUIRE(listener.ok());
  bulk_endpoint at{"127.0.0.1", bound_port(*listener), std::string(bulk_token_bytes, 't'), {}, {}, {}};
  const tensor a = counting(1), b = counting(2);
  std::vector<socket_fd> kept;  // open until the sender is gone, so no write of it fails
  bool frame_read = false;
  std::thread peer([&] {
    for (char answer : {'N', bulk_accepted}) {
      if (!wait_readable(*listener, scaled(std::chrono::milliseconds(10000)))) return;
      socket_fd c = accept_from(*listener);
      std::string token(bulk_token_bytes, '\0');
      iovec part{&answer, 1};
      if (!c.valid() || !read_exact(c, token.data(), token.size()) ||
          !write_all(c, std::span<iovec>(&part, 1)).ok())
        return;
      if (answer == bulk_accepted) {
        std::array<char, bulk_prefix_bytes> prefix{};
        if (!read_exact(c, prefix.data(), prefix.size())) return;
        auto header_bytes = parse_bulk_prefix(prefix);
        if (!header_bytes.ok()) return;
        std::vector<char> rest(*header_bytes + b.byte_size());
        frame_read = read_exact(c, rest.data(), rest.size());
      }
      kept.push_back(std::move(c));
    }
  });
  {
    bulk_sender sender("test", nullptr);
    sender.send(at, f.rendezvous, 1, "k", a);  // refused: through CAF
    REQUIRE(f.log->wait_for(1));
    // Within the pause (1 s) the link stays given up; after it, the next value tries again.
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));
    sender.send(at, f.rendezvous, 2, "k", b);
    peer.join();
  }
  CHECK(frame_read);  // the second value reached the channel whole
  std::lock_guard<std::mutex> lock(f.log->mu);
  REQUIRE(f.log->assembled.size() == 1);  // only the first went through CAF
  CHECK(same_bytes(f.log->assembled[0], a));
}

TEST_CASE("a frame for an actor the receiver does not route is dropped, the next one arrives") {
  channel_fixture f;
  bulk_sender sender("test", nullptr);
  auto other_log = std::make_shared<arrivals>();
  rendezvous_actor unrouted = f.sys.spawn(recorder, other_log);
  sender.send(f.receiver->endpoint(), unrouted, 1, "k", counting(1));
  const tensor b = counting(2);
  sender.send(f.receiver->endpoint(), f.rendezvous, 2, "k", b);
  REQUIRE(f.log->wait_for(1));
  {
    std::lock_guard<std::mutex> lock(f.log->mu);
    REQUIRE(f.log->pushed.size() == 1);
    CHECK(same_bytes(f.log->pushed[0].value.value, b));
  }
  CHECK(f.receiver->delivered() == 1);
  std::lock_guard<std::mutex> lock(other_log->mu);
  CHECK(other_log->pushed.empty());
  caf::anon_send_exit(unrouted, caf::exit_reason::user_shutdown);
}

TEST_CASE("a peer with the token but an absurd header is cut off before anything is allocated") {
  channel_fixture f;
  socket_fd s = f.handshake();
  auto frame = encode_bulk_header({.actor_id = f.rendezvous.id(),
                                   .step_id = 1,
                                   .key = "k",
                                   .type = static_cast<uint8_t>(dtype::float32),
                                   .dims = {int64_t{1} << 40},
                                   .total_bytes = uint64_t{4} << 40});
  iovec part{frame.data(), frame.size()};
  REQUIRE(write_all(s, std::span<iovec>(&part, 1)).ok());
  char more = 0;
  CHECK_FALSE(read_exact(s, &more, 1));  // closed by the receiver
  CHECK(f.receiver->delivered() == 0);
}

TEST_CASE("a value that arrives but cannot be kept fails its step; the stream goes on") {
  channel_fixture f;
  socket_fd s = f.handshake();
  // bool[4] holding a 7, then a good float32[2] on the same connection.
  auto send_frame = [&](int64_t step, dtype type, std::vector<int64_t> dims, std::string bytes) {
    auto frame = encode_bulk_header({.actor_id = f.rendezvous.id(),
                                     .step_id = step,
                                     .key = "k",
                                     .type = static_cast<uint8_t>(type),
                                     .dims = std::move(dims),
                                     .total_bytes = bytes.size()});
    iovec parts[2] = {{frame.data(), frame.size()}, {bytes.data(), bytes.size()}};
    REQUIRE(write_all(s, parts).ok());
  };
  send_frame(1, dtype::boolean, {4}, std::string("\x00\x01\x07\x00", 4));
  const float good[2] = {1.5f, -2.0f};
  send_frame(2, dtype::float32, {2}, std::string(reinterpret_cast<const char*>(good), 8));
  REQUIRE(f.log->wait_for(2));
  std::lock_guard<std::mutex> lock(f.log->mu);
  REQUIRE(f.log->aborted.size() == 1);
  CHECK(f.log->aborted[0].first == 1);
  const step_error& root_cause = f.log->aborted[0].second;
  CHECK(root_cause.code == static_cast<uint8_t>(error_code::data_loss));
  CHECK(root_cause.message ==
        "edge 'k', step 1: the bulk channel could not take the value: a boolean tensor holds "
        "bytes other than 0 and 1");
  CHECK(root_cause.node.empty());  // no node of this task failed: a value from the wire did
  REQUIRE(f.log->pushed.size() == 1);
  CHECK(f.log->pushed[0].step_id == 2);
  check_tensor(f.log->pushed[0].value.value, tensor_shape{2}, std::vector<float>{1.5f, -2.0f});
}

namespace {

size_t entries_in(const char* dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

TEST_CASE("probes that connect and leave give back their descriptors and threads at once") {
  channel_fixture f;
  (void)f.handshake();  // a sender that came and went, so the acceptor has run once
  const auto settled = [](size_t fds, size_t threads) {
    // Bounded: the acceptor joins ended connections within its reap interval.
    const auto until = std::chrono::steady_clock::now() + scaled(std::chrono::seconds(5));
    while (std::chrono::steady_clock::now() < until) {
      if (entries_in("/proc/self/fd") <= fds && entries_in("/proc/self/task") <= threads)
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  };
  REQUIRE(settled(entries_in("/proc/self/fd"), entries_in("/proc/self/task")));
  const size_t fds = entries_in("/proc/self/fd"), threads = entries_in("/proc/self/task");
  // 50 probes: half send a wrong token, half close without a word; no real peer follows.
  for (int i = 0; i < 50; ++i) {
    auto s = connect_to("127.0.0.1", f.receiver->endpoint().port, std::chrono::seconds(5));
    REQUIRE(s.ok());
    if (i % 2 == 0) {
      std::string wrong(bulk_token_bytes, 'x');
      iovec hello{wrong.data(), wrong.size()};
      (void)write_all(*s, std::span<iovec>(&hello, 1));
    }
  }
  CHECK_MESSAGE(settled(fds, threads), "fds ", entries_in("/proc/self/fd"), " (baseline ", fds,
                "), threads ", entries_in("/proc/self/task"), " (baseline ", threads, ")");
}

TEST_CASE("one address holds at most max_handshakes_per_address connections without a token") {
  channel_fixture f;
  // 30 silent connections from 127.0.0.1: the first 16 wait for their token (and its timeout),
  // the rest are closed as soon as they are accepted.
  std::vector<socket_fd> silent;
  for (int i = 0; i < 30; ++i) {
    auto s = connect_to("127.0.0.1", f.receiver->endpoint().port, std::chrono::seconds(5));
    REQUIRE(s.ok());
    silent.push_back(std::move(*s));
  }
  // Closed ones read as the end of the stream; the held ones stay silent until their token's
  // time (5 s) is up, well after this look.
  const auto until = std::chrono::steady_clock::now() + scaled(std::chrono::seconds(2));
  size_t closed_at_once = 0;
  for (auto& s : silent) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    char byte;
    if (wait_readable(s, std::max(left, std::chrono::milliseconds(1))) && !read_exact(s, &byte, 1))
      ++closed_at_once;
  }
  CHECK(closed_at_once == silent.size() - max_handshakes_per_address);
  // Once they leave, a sender with the token gets in (the receiver sees them go at once).
  silent.clear();
  bool accepted = false;
  const auto give_up = std::chrono::steady_clock::now() + scaled(std::chrono::seconds(5));
  while (!accepted && std::chrono::steady_clock::now() < give_up) {
    auto s = connect_to("127.0.0.1", f.receiver->endpoint().port, std::chrono::seconds(5));
    REQUIRE(s.ok());
    std::string token = f.receiver->endpoint().token;
    iovec hello{token.data(), token.size()};
    char answer = 0;
    accepted = write_all(*s, std::span<iovec>(&hello, 1)).ok() && read_exact(*s, &answer, 1) &&
               answer == bulk_accepted;
  }
  CHECK(accepted);
}
