// The sender's record of its export segment (net/shm/shm_blocks.hpp), without links: leases are
// counted per slot, a block comes back only when every receiver and the sender let go,
// variables take at most half the segment, and a segment serves shm_lease_slots links.
// Receivers are played by give_back on the block's header, as shm_receiver does.
#include <doctest/doctest.h>

#include <cstring>
#include <memory>

#include "net/shm/shm_blocks.hpp"
#include "kernels/framework/in_place.hpp"
#include "net/shm/shm_lease.hpp"

using namespace caflow;

namespace {

constexpr uint64_t segment_bytes = 1 << 20;  // room for one 600 KB tensor at a time

std::shared_ptr<shm_blocks> make_blocks() {
  auto segment = shm_segment::create("shm-blocks-test", segment_bytes);
  REQUIRE_MESSAGE(segment.ok(), segment.get_status().to_string());
  return std::make_shared<shm_blocks>(std::move(segment).value());
}

// The receiver of `slot` lets go of the block whose bytes start at `offset`.
void give_back(shm_blocks& blocks, uint64_t offset, uint32_t slot) {
  shm_lease::give_back(static_cast<char*>(blocks.segment().data()) + offset - shm_lease_bytes,
                       slot);
}

tensor big(const std::shared_ptr<allocator>& from) {
  auto t = tensor::allocate(from, dtype::float32, tensor_shape{37500, 4});
  REQUIRE(t.ok());
  return *t;
}

// 600 KB on the heap, as a value computed elsewhere.
const tensor heap_big = [] {
  tensor t(dtype::float32, tensor_shape{37500, 4});
  std::memset(t.raw_data(), 0, t.byte_size());
  return t;
}();

}  // namespace

TEST_CASE("shm blocks: each hand-over counts a lease in its slot; the block waits for all") {
  auto blocks = make_blocks();
  const uint32_t a = *blocks->claim_slot(), b = *blocks->claim_slot();
  CHECK(a != b);
  tensor value = big(blocks->output_allocator(4096));
  const auto first = blocks->hand_over(value, a);
  REQUIRE(first.has_value());
  CHECK(blocks->hand_over(value, b) == first);
  CHECK(blocks->hand_over(value, a) == first);  // a's next step, before it let go of the last
  CHECK(blocks->blocks_out() == 1);
  // The sender lets go first: the block stays out, and a copy finds no room.
  value = tensor{};
  CHECK(blocks->blocks_out() == 1);
  CHECK_FALSE(blocks->copy_in(heap_big, a).has_value());
  give_back(*blocks, *first, a);
  give_back(*blocks, *first, b);
  CHECK_FALSE(blocks->copy_in(heap_big, a).has_value());  // a still holds one
  give_back(*blocks, *first, a);
  const auto copied = blocks->copy_in(heap_big, b);
  REQUIRE(copied.has_value());  // the first block came back for it
  CHECK(blocks->blocks_out() == 1);
  // A copy's block comes back once its receiver lets go: no tensor here holds it.
  give_back(*blocks, *copied, b);
  CHECK(blocks->copy_in(heap_big, b).has_value());
}

TEST_CASE("shm blocks: bytes a receiver views are not writable in place, even by their owner") {
  auto blocks = make_blocks();
  const uint32_t slot = *blocks->claim_slot();
  auto value = tensor::allocate(blocks->variable_allocator(4096), dtype::float32,
                                tensor_shape{1000, 4});
  REQUIRE(value.ok());
  CHECK(mutable_in_place(*value));
  const auto offset = blocks->hand_over(*value, slot);
  REQUIRE(offset.has_value());
  CHECK_FALSE(mutable_in_place(*value));
  give_back(*blocks, *offset, slot);
  CHECK(mutable_in_place(*value));
}

TEST_CASE("shm blocks: only a whole block a tensor here holds is handed over") {
  auto blocks = make_blocks();
  const uint32_t slot = *blocks->claim_slot();
  CHECK_FALSE(blocks->hand_over(heap_big, slot).has_value());  // not in the segment
  tensor value = big(blocks->output_allocator(4096));
  // A view of its second row: its bytes start inside the block, not after a header.
  tensor row = tensor::view(value.buf(), 16, dtype::float32, tensor_shape{4});
  CHECK_FALSE(blocks->hand_over(row, slot).has_value());
  CHECK(blocks->hand_over(value, slot).has_value());
}

TEST_CASE("shm blocks: a tensor of a page or more starts 64 bytes into a page, as on the heap") {
  auto blocks = make_blocks();
  const auto out = blocks->output_allocator(64);
  auto small = tensor::allocate(out, dtype::float32, tensor_shape{16});  // shifts what follows
  auto big = tensor::allocate(out, dtype::float32, tensor_shape{1024});
  auto var = tensor::allocate(blocks->variable_allocator(64), dtype::float32, tensor_shape{5000});
  REQUIRE(small.ok());
  REQUIRE(big.ok());
  REQUIRE(var.ok());
  // Where glibc's big heap allocations start too (not checked here: a sanitizer's heap
  // differs), so streams mixing both keep their distance within a page.
  const auto page_offset = [](const tensor& t) {
    return reinterpret_cast<uintptr_t>(t.raw_data()) % 4096;
  };
  CHECK(page_offset(*big) == 64);
  CHECK(page_offset(*var) == 64);
}

TEST_CASE("shm blocks: variables take at most half the segment; beyond, the heap") {
  auto blocks = make_blocks();
  const uint32_t slot = *blocks->claim_slot();
  const auto home = blocks->variable_allocator(4096);
  auto first = tensor::allocate(home, dtype::float32, tensor_shape{100000});  // 400 KB
  auto second = tensor::allocate(home, dtype::float32, tensor_shape{100000});
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  CHECK(blocks->hand_over(*first, slot).has_value());
  CHECK_FALSE(blocks->hand_over(*second, slot).has_value());  // on the heap
  CHECK(blocks->blocks_out() == 1);
  // The values of a step still find room.
  auto output = tensor::allocate(blocks->output_allocator(4096), dtype::float32,
                                 tensor_shape{100000});
  REQUIRE(output.ok());
  CHECK(blocks->hand_over(*output, slot).has_value());
  // Below the allocator's smallest size: the heap too.
  auto small = tensor::allocate(home, dtype::float32, tensor_shape{16});
  REQUIRE(small.ok());
  CHECK_FALSE(blocks->hand_over(*small, slot).has_value());
}

TEST_CASE("shm blocks: a segment serves shm_lease_slots links, and never gives a slot twice") {
  auto blocks = make_blocks();
  for (uint32_t i = 0; i < shm_lease_slots; ++i) CHECK(blocks->claim_slot() == i);
  CHECK_FALSE(blocks->claim_slot().has_value());
  CHECK_FALSE(blocks->linked());
  blocks->mark_linked();
  CHECK(blocks->linked());
}
