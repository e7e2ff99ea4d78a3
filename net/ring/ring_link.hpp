#pragma once
// One connection's same-host rings: BASP's bytes between two tasks on one host go through
// shared memory instead of loopback TCP (docs/shm_transport.md, "Rings"). TCP still carries
// the connection: it opens it, tells each side where the other's bytes will come from, wakes a
// reader that stopped polling, and its end is the connection's end.
//
// On the wire, each direction on its own:
//
//   TCP:  hello | 'T' | BASP bytes...          (no ring that way)
//   TCP:  hello | 'R' token | doorbells...     (a ring that way)
//   ring: records of BASP bytes, in order
//
// hello = u64 magic, u32 payload bytes, payload = u8 accepts rings, u16 + boot id,
// u16 + ring listener path. Each side sends its hello at once, holds BASP's bytes until it has
// read the peer's, and then chooses: a ring when the peer accepts rings on this host (same boot
// id) and this side can write one (net/ring/ring_listener.hpp hands the segment over, proving the
// cluster secret), TCP otherwise.
//
// A reader polls its rings from the loop while the loop busy-polls and says so in the ring's
// awake word; a writer that finds the reader asleep after a push sends one doorbell byte on
// TCP. A full ring keeps the rest of a write here until the reader makes room; the loop's
// poller keeps pushing (net/loop/loop_scheduler.hpp). So only a system whose loop busy-polls takes
// or writes rings (ring_settings, filled in by net/connection_manager.cpp).
//
// Everything here runs on the connection's network loop. Nothing a peer sends is trusted: a
// bad hello, an unknown choice, a token no ring was handed over with, or a ring whose records
// no writer would leave ends the connection, saying why (refusal()).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "net/ring/ring_listener.hpp"
#include "net/ring/shm_ring.hpp"
#include "net/shm/shm_segment.hpp"

namespace caflow {

// What a process brings to its connections' rings; one per actor system.
struct ring_settings {
  std::shared_ptr<ring_listener> listener;  // null: this process takes no rings
  std::string secret;                       // the cluster's, proved to a peer's listener
  std::string boot_id;                      // empty: the host cannot be told from others
  bool writes_rings = false;                // a poller pushes what a full ring could not take
  size_t ring_bytes = size_t{1} << 20;      // records each ring this process writes holds
};

// How many connection directions chose a ring or TCP, process-wide (tests and benches look).
struct ring_counters {
  std::atomic<uint64_t> rings_written{0};    // directions this process writes through a ring
  std::atomic<uint64_t> rings_read{0};       // directions this process reads from a ring
  std::atomic<uint64_t> handoffs_failed{0};  // a ring was possible, its handoff failed: TCP
  std::atomic<uint64_t> refused{0};          // connections ended for a bad hello or ring
  std::atomic<uint64_t> doorbells{0};        // pushes that found their reader asleep
};
ring_counters& ring_stats();

inline constexpr uint64_t ring_hello_magic = 0x316f6c6c6568'6663;  // "cfhello1"
inline constexpr size_t max_ring_hello_bytes = 4096;
// How long a writer waits for a peer's listener to take its ring (the loop waits with it).
inline constexpr std::chrono::milliseconds ring_handoff_patience{500};

class ring_link {
 public:
  enum class read_state { bytes, nothing_now, closed };

  ring_link(int fd, std::shared_ptr<const ring_settings> settings);
  ring_link(const ring_link&) = delete;
  ring_link& operator=(const ring_link&) = delete;

  // Sends this side's hello: the connection's first bytes. False when the socket refuses them.
  bool send_hello();

  // Reads what BASP asked for (up to `len` bytes): `bytes` with `got` > 0, `nothing_now`, or
  // `closed` (the peer's end, a socket error, or a refusal: see refusal()).
  read_state read(void* buf, size_t len, size_t& got);
  // Bytes taken from the socket or the ring and not yet handed out: read on, nothing else will
  // say they are there.
  bool holds_bytes() const;
  // Why the connection was refused; empty if it was not.
  const std::string& refusal() const { return refusal_; }

  // Whether this side has chosen how it writes; until then BASP's bytes wait in the stream.
  bool decided() const { return decided_; }
  bool writes_ring() const { return out_ring_.has_value(); }
  // Ring writer: takes `bytes` (left empty) into the ring; what does not fit waits here, behind
  // anything that waits already.
  void write(std::vector<char>& bytes);
  // Ring writer: pushes what waits, as much as the ring takes.
  void push_waiting();
  bool has_waiting() const { return !waiting_.empty(); }

  // Ring reader: whether records wait, and telling the writer whether to ring the doorbell.
  bool reads_ring() const { return in_ring_.has_value(); }
  bool ring_ready() const { return in_ring_ && in_ring_->has_records(); }
  void set_awake(bool awake) {
    if (in_ring_) in_ring_->set_awake(awake);
  }
  // Ring reader: the reads until the next call come from the loop's poller, not from the
  // socket being readable. An empty ring then leaves the socket alone: a doorbell or the
  // peer's end makes it readable, and the read that follows drains it. Otherwise every record
  // read cost a recv() that found nothing, about 0.3 us.
  void reading_for_poller(bool polled) { polled_read_ = polled; }

  // Called once this side has chosen (the stream may send what it held), and once a ring to
  // read from is attached (the loop should poll it).
  std::function<void()> on_decided;
  std::function<void()> on_ring_attached;

 private:
  enum class phase { hello, choice, tcp, ring, done };
  enum class io { data, again, end, error };

  io recv_into(void* p, size_t n, size_t& got);
  // Makes at least `n` bytes buffered in in_ (n <= in_.size()).
  io fill(size_t n);
  read_state refuse(std::string why);
  read_state read_hello();
  read_state read_choice();
  read_state read_tcp(void* buf, size_t len, size_t& got);
  read_state read_ring(void* buf, size_t len, size_t& got);
  void choose(bool peer_accepts, const std::string& peer_boot, const std::string& peer_path);
  // Pushes [data, data + n) in records until the ring is full; `pushed` says how far it got.
  void push(const char* data, size_t n, size_t& pushed);
  void ring_doorbell();

  const int fd_;
  const std::shared_ptr<const ring_settings> settings_;
  phase phase_ = phase::hello;
  std::string refusal_;
  bool decided_ = false;

  // Socket bytes read ahead: a small BASP message costs one recv, and several that arrived
  // together one between them.
  std::vector<char> in_ = std::vector<char>(64 * 1024);
  size_t begin_ = 0, end_ = 0;

  std::shared_ptr<shm_segment> in_segment_, out_segment_;
  std::optional<shm_ring> in_ring_, out_ring_;
  std::vector<std::byte> record_;  // the record being handed out
  size_t record_from_ = 0;
  bool peer_ended_ = false;
  bool polled_read_ = false;
  // What a full ring could not take yet, oldest first: the stream's buffers themselves, each
  // with how much of it the ring took. One growing buffer held it before, and every write
  // behind a full ring copied (and page-faulted) the whole backlog again as it grew: moving a
  // 48 MiB fetch kept a task's loop from its heartbeats for over a second on a loaded host.
  struct pending {
    std::vector<char> bytes;
    size_t from = 0;
  };
  std::deque<pending> waiting_;
};

}  // namespace caflow
