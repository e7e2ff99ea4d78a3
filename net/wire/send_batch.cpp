#include "net/wire/send_batch.hpp"

#include <caf/send.hpp>

#include "net/errors.hpp"
#include <utility>
#include <vector>

namespace caflow {
namespace {

// What this thread holds for one receiving process.
struct destination {
  caf::node_id node;
  edge_batch batch;
};

struct thread_batch {
  int depth = 0;
  size_t held = 0;
  std::vector<destination> to;  // a step sends to a few processes: a list beats a map

  edge_batch& for_node(const caf::node_id& node) {
    for (destination& d : to)
      if (d.node == node) return d.batch;
    to.push_back({node, {}});
    return to.back().batch;
  }
};

thread_local thread_batch batch;

void send(edge_batch&& b) {
  const size_t entries = b.values.size() + b.shared.size();
  if (entries == 0) return;
  if (entries == 1) {  // as the plain message: a batch of one would only add a forward
    if (!b.values.empty()) caf::anon_send(b.to[0], cf_push_atom::value, std::move(b.values[0]));
    else caf::anon_send(b.to[0], cf_shm_atom::value, std::move(b.shared[0]));
  } else {
    const rendezvous_actor first = b.to[0];
    caf::anon_send(first, cf_batch_atom::value, std::move(b));
  }
}

// The entries keep their order: values first, then shared, as the receiver reads them, and
// values of one kind in the order they were held. (A value and a descriptor of one burst are
// never for the same edge and step, so their relative order does not matter.)
template <class Entry>
bool hold_entry(const rendezvous_actor& to, Entry&& e, std::vector<Entry> edge_batch::*list) {
  if (batch.depth == 0 || !to) return false;
  edge_batch& b = batch.for_node(to.node());
  if constexpr (std::is_same_v<Entry, edge_value>) {
    b.to.insert(b.to.begin() + static_cast<std::ptrdiff_t>(b.values.size()), to);
  } else {
    b.to.push_back(to);
  }
  (b.*list).push_back(std::move(e));
  ++batch.held;
  return true;
}

}  // namespace

void send_batch::open() { ++batch.depth; }

void send_batch::close() {
  if (--batch.depth == 0) flush();
}

bool send_batch::hold(const rendezvous_actor& to, edge_value&& v) {
  return hold_entry(to, std::move(v), &edge_batch::values);
}

bool send_batch::hold(const rendezvous_actor& to, edge_shm&& v) {
  return hold_entry(to, std::move(v), &edge_batch::shared);
}

bool send_batch::holding() { return batch.held > 0; }

void send_batch::flush() {
  if (batch.held == 0) return;
  batch.held = 0;
  for (destination& d : batch.to) send(std::exchange(d.batch, edge_batch{}));
}

edge_batch send_batch::take(const caf::node_id& node) {
  if (batch.depth == 0) return {};
  for (destination& d : batch.to) {
    if (d.node != node) continue;
    batch.held -= d.batch.values.size() + d.batch.shared.size();
    return std::exchange(d.batch, edge_batch{});
  }
  return {};
}

status send_batch::hand_over(edge_batch&& b, const caf::node_id& here) {
  if (b.to.empty() && b.values.empty() && b.shared.empty()) return {};
  if (b.to.empty() || !b.to[0] || b.to[0].node() != here)
    return errors::invalid_argument("a batch of ", b.values.size() + b.shared.size(),
                                    " values came for an edge actor that is not in this process: "
                                    "refused");
  const rendezvous_actor first = b.to[0];
  caf::anon_send(first, cf_batch_atom::value, std::move(b));
  return {};
}

}  // namespace caflow
