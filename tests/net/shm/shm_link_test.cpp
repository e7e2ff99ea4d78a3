// Same-host shared memory links (net/shm/shm_sender.hpp, net/shm/shm_receiver.hpp): a worker's
// sender links to another worker's receiver, writes a tensor into its segment and sends only
// the descriptor; the receiver views the bytes in place and gives the block back when the last
// view dies. A recording actor stands in for the rendezvous actor. What falls back to TCP, and
// every descriptor the receiver refuses, too. (The building blocks: net_shm_*_test. The whole
// cluster runs over these links by default: every multi-task test and the training benches.)
#include <doctest/doctest.h>

#include <caf/all.hpp>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "net/shm/shm_receiver.hpp"
#include "net/shm/shm_sender.hpp"
#include "kernels/framework/in_place.hpp"
#include "net/shm/shm_lease.hpp"
#include "net/boot_id.hpp"
#include "net/bulk/bulk_frame.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/two_task_master.hpp"

using namespace caflow;
using namespace caflow::testing::two_tasks;

namespace {

struct arrivals {
  std::mutex mu;
  std::condition_variable changed;
  std::vector<edge_shm> shared;

  // The n-th descriptor (0-based) once it came; fails the test after 10 s.
  edge_shm wait_for(size_t n) {
    std::unique_lock<std::mutex> lock(mu);
    REQUIRE(changed.wait_for(lock, std::chrono::seconds(10), [&] { return shared.size() > n; }));
    return shared[n];
  }
};

rendezvous_actor::behavior_type recorder(rendezvous_actor::pointer, std::shared_ptr<arrivals> log) {
  return {
      [](cf_push_atom, const edge_value&) {},
      [](cf_chunk_atom, const edge_chunk&) {},
      [log](cf_shm_atom, const edge_shm& v) {
        std::lock_guard<std::mutex> lock(log->mu);
        log->shared.push_back(v);
        log->changed.notify_all();
      },
      [](cf_batch_atom, const edge_batch&) {},
      [](cf_abort_atom, int64_t, const step_error&) {},
      [](cf_cleanup_atom, int64_t) {},
  };
}

// What remote_rendezvous does with a link: the descriptor, if the link takes the value, sent
// on its own.
bool send(shm_link& link, const rendezvous_actor& to, int64_t step_id, const std::string& key,
          const tensor& value) {
  auto d = link.place(step_id, key, value);
  if (d) caf::anon_send(to, cf_shm_atom::value, std::move(*d));
  return d.has_value();
}

// `n` floats counting up from `first`: a byte out of place shows.
tensor counting(int64_t n, float first) {
  tensor t(dtype::float32, tensor_shape{n / 4, 4});
  for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = first + static_cast<float>(i);
  return t;
}

bool wait_until(const std::function<bool()>& done) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

struct link_fixture {
  test_config cfg;
  caf::actor_system sys{cfg};
  std::shared_ptr<arrivals> log = std::make_shared<arrivals>();
  rendezvous_actor rendezvous = sys.spawn(recorder, log);
  std::shared_ptr<shm_receiver> receiver;
  bulk_endpoint at;

  link_fixture() {
    auto r = shm_receiver::start("receiver");
    REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
    receiver = std::move(r).value();
    receiver->describe(at);
  }
  ~link_fixture() { caf::anon_send_exit(rendezvous, caf::exit_reason::user_shutdown); }

  // A sender's link to the receiver, up.
  std::shared_ptr<shm_link> up_link(shm_sender& sender) {
    auto link = sender.link_to(at);
    REQUIRE(link != nullptr);
    REQUIRE_MESSAGE(wait_until([&] { return link->up(); }), "the link never came up");
    return link;
  }
};

}  // namespace

TEST_CASE("shm link: a tensor arrives as a view of the sender's bytes, and its block comes back") {
  link_fixture f;
  CHECK(f.at.shm_boot_id == this_boot_id());
  CHECK_FALSE(f.at.shm_path.empty());
  CHECK(f.at.shm_secret.size() == bulk_token_bytes);
  // 1 MiB: room for one 600 KB tensor at a time.
  shm_sender sender("sender", 1 << 20);
  auto link = f.up_link(sender);
  CHECK(f.receiver->links() == 1);
  CHECK(sender.link_to(f.at) == link);  // one link per receiving task

  const tensor first = counting(150000, 1.0f);
  REQUIRE(send(*link, f.rendezvous, 7, "edge", first));
  const edge_shm d = f.log->wait_for(0);
  CHECK(d.step_id == 7);
  CHECK(d.key == "edge");
  CHECK(d.dims == std::vector<int64_t>{37500, 4});
  CHECK(d.bytes == 600000);
  CHECK(d.offset % tensor_alignment == 0);
  auto got = f.receiver->take(d);
  REQUIRE_MESSAGE(got.ok(), got.get_status().to_string());
  CHECK(got->shape() == first.shape());
  CHECK(std::memcmp(got->raw_data(), first.raw_data(), first.byte_size()) == 0);
  CHECK(std::string(got->buf()->owner().name()) == "shm");

  // While the receiver views the block, a second tensor finds no room and goes another way.
  const tensor second = counting(150000, -5.0f);
  CHECK_FALSE(send(*link, f.rendezvous, 8, "edge", second));
  // Once the last view dies, the block is taken back at the next send.
  tensor alias = *got;
  got = errors::cancelled("dropped");
  CHECK_FALSE(send(*link, f.rendezvous, 8, "edge", second));  // `alias` still views it
  alias = tensor{};
  REQUIRE(send(*link, f.rendezvous, 8, "edge", second));
  auto again = f.receiver->take(f.log->wait_for(1));
  REQUIRE(again.ok());
  CHECK(again->data<float>()[0] == -5.0f);
  CHECK(again->data<float>()[149999] == -5.0f + 149999.0f);
}

TEST_CASE("shm link: what goes another way (small, empty, no listener, another host)") {
  link_fixture f;
  shm_sender sender("sender", 1 << 20);
  auto link = f.up_link(sender);
  CHECK_FALSE(send(*link, f.rendezvous, 1, "k", tensor::from_vector<float>({1, 2, 3})));
  CHECK_FALSE(send(*link, f.rendezvous, 1, "k", tensor{}));
  // Bigger than the whole segment.
  CHECK_FALSE(send(*link, f.rendezvous, 1, "k", counting(1 << 20, 0.0f)));

  bulk_endpoint elsewhere = f.at;
  elsewhere.shm_boot_id = "another-host";
  CHECK(sender.link_to(elsewhere) == nullptr);
  bulk_endpoint none = f.at;
  none.shm_path.clear();
  CHECK(sender.link_to(none) == nullptr);
}

TEST_CASE("shm link: a sender without the receiver's secret never links, and says so once") {
  link_fixture f;
  shm_sender sender("sender", 1 << 20);
  bulk_endpoint wrong = f.at;
  wrong.shm_secret = std::string(bulk_token_bytes, 'x');
  auto link = sender.link_to(wrong);
  REQUIRE(link != nullptr);
  // The handshake fails at once; the link stays down and the receiver holds nothing.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK_FALSE(link->up());
  CHECK_FALSE(send(*link, f.rendezvous, 1, "k", counting(4096, 0.0f)));
  CHECK(f.receiver->links() == 0);
  // It is not tried again for this listener.
  CHECK(sender.link_to(wrong) == link);
}

TEST_CASE("shm link: the receiver forgets a sender's segment when its link goes") {
  link_fixture f;
  tensor kept;
  {
    shm_sender sender("sender", 1 << 20);
    auto link = f.up_link(sender);
    REQUIRE(send(*link, f.rendezvous, 3, "k", counting(4096, 2.0f)));
    auto got = f.receiver->take(f.log->wait_for(0));
    REQUIRE(got.ok());
    kept = *got;
  }
  REQUIRE_MESSAGE(wait_until([&] { return f.receiver->links() == 0; }),
                  "the receiver still holds the segment of a closed link");
  // A view taken before stays readable: the mapping lives with it.
  CHECK(kept.data<float>()[4095] == 2.0f + 4095.0f);
  // A descriptor naming the forgotten segment fails its step.
  edge_shm late = f.log->wait_for(0);
  auto refused = f.receiver->take(late);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.get_status().message().find("no segment") != std::string::npos);
  // Its sender is gone: a client recovers as from a lost task.
  CHECK(refused.get_status().code() == error_code::unavailable);
}

TEST_CASE("shm link: descriptors that do not fit the segment are refused, naming the edge") {
  link_fixture f;
  shm_sender sender("sender", 1 << 20);
  auto link = f.up_link(sender);
  REQUIRE(send(*link, f.rendezvous, 4, "edge", counting(4096, 0.0f)));
  const edge_shm good = f.log->wait_for(0);
  auto refused = [&](edge_shm d, const char* says) {
    auto t = f.receiver->take(d);
    REQUIRE_FALSE(t.ok());
    CHECK_MESSAGE(t.get_status().message().find(says) != std::string::npos,
                  t.get_status().message());
    CHECK(t.get_status().message().find("edge 'edge'") != std::string::npos);
  };
  edge_shm d = good;
  d.offset = (1 << 20) - 64;  // runs past the end
  refused(d, "does not lie aligned");
  d = good;
  d.offset = 0;  // leaves no room for the lease before it
  refused(d, "does not lie aligned");
  d = good;
  d.offset += 4;
  refused(d, "does not lie aligned");
  d = good;
  d.offset = ~uint64_t{0} - 63;  // offset + bytes overflows
  refused(d, "does not lie aligned");
  d = good;
  d.bytes += 4;
  refused(d, "announced with");
  d = good;
  d.type = 200;
  refused(d, "invalid dtype");
  d = good;
  d.dims = {-3, 4};
  refused(d, "[-3,4]");
  d = good;
  d.segment += 1000;
  refused(d, "no segment");
  d = good;
  d.lease_slot = shm_lease_slots;  // a counter past the block's header
  refused(d, "lease slot 16 of a block with 16");
  CHECK(f.receiver->take(good).ok());
}

TEST_CASE("shm link: a bool tensor's bytes are checked where they land") {
  link_fixture f;
  shm_sender sender("sender", 1 << 20);
  auto link = f.up_link(sender);
  tensor flags(dtype::boolean, tensor_shape{8192});
  std::memset(flags.raw_data(), 1, flags.byte_size());
  static_cast<uint8_t*>(flags.raw_data())[77] = 2;
  REQUIRE(send(*link, f.rendezvous, 5, "flags", flags));
  auto t = f.receiver->take(f.log->wait_for(0));
  REQUIRE_FALSE(t.ok());
  CHECK(t.get_status().message().find("byte value 2 at element 77") != std::string::npos);
  // The refused view died at once: its block is free for the next value.
  std::memset(flags.raw_data(), 0, flags.byte_size());
  REQUIRE(send(*link, f.rendezvous, 6, "flags", flags));
  CHECK(f.receiver->take(f.log->wait_for(1)).ok());
}

TEST_CASE("shm link: a kernel output allocated in the segment goes over without a copy") {
  link_fixture f;
  shm_sender sender("sender", 1 << 20);  // room for one 600 KB tensor at a time
  auto link = f.up_link(sender);
  const std::shared_ptr<allocator> out = link->output_allocator();
  REQUIRE(out != nullptr);

  auto first = tensor::allocate(out, dtype::float32, tensor_shape{37500, 4});
  REQUIRE(first.ok());
  for (int64_t i = 0; i < 150000; ++i) first->data<float>()[i] = static_cast<float>(i);
  REQUIRE(send(*link, f.rendezvous, 7, "edge", *first));
  auto got = f.receiver->take(f.log->wait_for(0));
  REQUIRE_MESSAGE(got.ok(), got.get_status().to_string());
  CHECK(got->data<float>()[149999] == 149999.0f);
  // The receiver views the very bytes the kernel wrote: a later write shows there.
  first->data<float>()[0] = 42.0f;
  CHECK(got->data<float>()[0] == 42.0f);

  // The block is out while either side holds it: a second tensor finds no room to be copied.
  const tensor second = counting(150000, -5.0f);
  got = errors::cancelled("the receiver is done");
  CHECK_FALSE(send(*link, f.rendezvous, 8, "edge", second));  // the sender still holds it
  *first = tensor{};
  REQUIRE(send(*link, f.rendezvous, 8, "edge", second));  // both let go: taken back
  auto again = f.receiver->take(f.log->wait_for(1));
  REQUIRE(again.ok());
  CHECK(again->data<float>()[0] == -5.0f);
}

TEST_CASE("shm link: an output's block is handed over at every send, and comes back if never sent") {
  link_fixture f;
  shm_sender sender("sender", 1 << 20);
  auto link = f.up_link(sender);
  const std::shared_ptr<allocator> out = link->output_allocator();
  REQUIRE(out != nullptr);
  {
    // Never sent (its step failed first): the block comes back when the tensor dies.
    auto unsent = tensor::allocate(out, dtype::float32, tensor_shape{37500, 4});
    REQUIRE(unsent.ok());
  }
  // In the segment only because the unsent block came back (two would not fit): sent without
  // a copy, as a write after the send shows.
  auto big = tensor::allocate(out, dtype::float32, tensor_shape{37500, 4});
  REQUIRE(big.ok());
  REQUIRE(send(*link, f.rendezvous, 9, "big", *big));
  auto view_big = f.receiver->take(f.log->wait_for(0));
  REQUIRE(view_big.ok());
  big->data<float>()[5] = 9.0f;
  CHECK(view_big->data<float>()[5] == 9.0f);
  // The same bytes sent twice: both descriptors name the one block, each counting a lease, so
  // one view's release leaves the block out while the other reads it.
  auto value = tensor::allocate(out, dtype::float32, tensor_shape{1000, 4});
  REQUIRE(value.ok());
  for (int64_t i = 0; i < 4000; ++i) value->data<float>()[i] = 1.0f;
  REQUIRE(send(*link, f.rendezvous, 9, "a", *value));
  REQUIRE(send(*link, f.rendezvous, 9, "b", *value));
  const edge_shm a = f.log->wait_for(1), b = f.log->wait_for(2);
  CHECK(a.offset == b.offset);
  auto view_a = f.receiver->take(a);
  auto view_b = f.receiver->take(b);
  REQUIRE(view_a.ok());
  REQUIRE(view_b.ok());
  CHECK(view_a->raw_data() == view_b->raw_data());
  // The sender may not write bytes a receiver views, though its own tensor is their only
  // holder in this process.
  CHECK_FALSE(mutable_in_place(*value));
  view_a = errors::cancelled("done");
  CHECK_FALSE(mutable_in_place(*value));
  view_b = errors::cancelled("done");
  CHECK(mutable_in_place(*value));
  // Nor may a receiver write the sender's bytes it views.
  CHECK_FALSE(mutable_in_place(*view_big));
  // Small outputs, and any the segment has no room for, come from the heap.
  auto small = tensor::allocate(out, dtype::float32, tensor_shape{4});
  REQUIRE(small.ok());
  CHECK_FALSE(send(*link, f.rendezvous, 10, "c", *small));
  auto no_room = tensor::allocate(out, dtype::float32, tensor_shape{37500, 4});
  REQUIRE(no_room.ok());
  for (int64_t i = 0; i < 150000; ++i) no_room->data<float>()[i] = 3.0f;
  CHECK(no_room->data<float>()[149999] == 3.0f);
  // On the heap: no block to hand over, and no room to copy it into.
  CHECK_FALSE(send(*link, f.rendezvous, 11, "d", *no_room));
}

TEST_CASE("shm link: the links to two receivers share one segment, and a variable's block") {
  link_fixture one, two;
  shm_sender sender("sender", 1 << 20);
  CHECK(sender.variables() == nullptr);  // no link up yet: variables stay where they are
  auto link_one = one.up_link(sender);
  auto link_two = two.up_link(sender);
  const std::shared_ptr<allocator> home = sender.variables();
  REQUIRE(home != nullptr);
  CHECK(std::string(home->name()) == "shm-variables");

  // A ps's variable, read by both workers on the same step: both view its own bytes.
  auto var = tensor::allocate(home, dtype::float32, tensor_shape{1000, 4});
  REQUIRE(var.ok());
  for (int64_t i = 0; i < 4000; ++i) var->data<float>()[i] = static_cast<float>(i);
  REQUIRE(send(*link_one, one.rendezvous, 1, "w", *var));
  REQUIRE(send(*link_two, two.rendezvous, 1, "w", *var));
  const edge_shm d1 = one.log->wait_for(0), d2 = two.log->wait_for(0);
  CHECK(d1.offset == d2.offset);
  CHECK(d1.lease_slot != d2.lease_slot);
  auto v1 = one.receiver->take(d1);
  auto v2 = two.receiver->take(d2);
  REQUIRE(v1.ok());
  REQUIRE(v2.ok());
  CHECK(v1->data<float>()[3999] == 3999.0f);
  CHECK(v2->data<float>()[3999] == 3999.0f);
  // Its update may write in place only once neither worker views it.
  CHECK_FALSE(mutable_in_place(*var));
  v1 = errors::cancelled("worker one is done");
  CHECK_FALSE(mutable_in_place(*var));
  v2 = errors::cancelled("worker two is done");
  CHECK(mutable_in_place(*var));
  // The next step hands the same block over again.
  REQUIRE(send(*link_one, one.rendezvous, 2, "w", *var));
  CHECK(one.log->wait_for(1).offset == d1.offset);
}
