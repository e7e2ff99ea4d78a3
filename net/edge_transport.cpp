#include "net/edge_transport.hpp"

#include <caf/send.hpp>
#include <utility>

#include "graph/core/log.hpp"
#include "net/bulk/bulk_receiver.hpp"
#include "net/bulk/bulk_sender.hpp"
#include "net/cluster_spec.hpp"
#include "net/shm/shm_receiver.hpp"
#include "net/shm/shm_sender.hpp"
#include "net/wire/send_batch.hpp"

namespace caflow {

std::shared_ptr<edge_transport> edge_transport::start(const edge_transport_options& opts) {
  auto t = std::make_shared<edge_transport>();
  t->opts_ = opts;
  if (!opts.bulk_host.empty()) t->bulk_out_ = std::make_shared<bulk_sender>(opts.task, opts.abandoned);
  if (opts.shm_segment_bytes > 0)
    t->shm_out_ = std::make_shared<shm_sender>(opts.task, opts.shm_segment_bytes);
  return t;
}

void edge_transport::open_receivers() {
  if (receivers_opened_) return;
  receivers_opened_ = true;
  if (!opts_.bulk_host.empty()) {
    auto bulk = bulk_receiver::start(opts_.bulk_host, opts_.task);
    if (bulk.ok())
      bulk_in_ = std::move(bulk).value();
    else
      write_log(log_level::warn, opts_.task, "no bulk channel, big tensors go through CAF: ",
                bulk.get_status().message());
  }
  if (opts_.shm_segment_bytes > 0) {
    auto shm = shm_receiver::start(opts_.task);
    if (shm.ok())
      shm_in_ = std::move(shm).value();
    else
      write_log(log_level::warn, opts_.task,
                "no shared memory links, values to tasks on this host go through TCP: ",
                shm.get_status().message());
  }
}

edge_transport::edge_transport() = default;
edge_transport::~edge_transport() = default;

edge_route edge_transport::route_to(rendezvous_actor to, const bulk_endpoint& at) const {
  const bool remote = to && to.node() != to.home_system().node();
  std::shared_ptr<shm_link> link = remote && shm_out_ ? shm_out_->link_to(at) : nullptr;
  const bool near = at.host == opts_.bulk_host || is_loopback_host(at.host);
  return edge_route{std::move(to), remote, at, std::move(link),
                    near ? edge_chunk_bytes : cross_host_bulk_bytes};
}

void edge_transport::send(const edge_route& to, int64_t step_id, const std::string& key,
                          const tensor& value) const {
  // A string tensor's size is its contents' (graph/core/tensor.hpp): it always travels inline,
  // where its layout is checked on arrival.
  const bool strings = value.type() == dtype::string;
  if (to.shm && !strings) {
    if (auto d = to.shm->place(step_id, key, value)) {
      if (!send_batch::hold(to.actor, std::move(*d)))
        caf::anon_send(to.actor, cf_shm_atom::value, std::move(*d));
      return;
    }
  }
  // In a process the message shares the buffer, whatever its size. Across processes a big
  // tensor goes in pieces that each share it too, so nothing is copied before serialization;
  // CAF keeps the order of messages from one sender to one receiver.
  if (to.remote && !strings && value.initialized()) {
    const bool bulk = bulk_out_ && to.at.port != 0;
    if (bulk && value.byte_size() > to.bulk_from) {
      bulk_out_->send(to.at, to.actor, step_id, key, value);
      return;
    }
    if (value.byte_size() > edge_chunk_bytes) {
      send_in_chunks(to.actor, step_id, key, value);
      return;
    }
  }
  // Within this process a message is only a mailbox entry: batching would add a forward.
  edge_value v{step_id, key, wire_tensor{value}};
  if (!to.remote || !send_batch::hold(to.actor, std::move(v)))
    caf::anon_send(to.actor, cf_push_atom::value, std::move(v));
}

std::shared_ptr<allocator> edge_transport::output_allocator(const edge_route& route) const {
  return route.shm ? route.shm->output_allocator() : nullptr;
}

void edge_transport::begin_pass() { send_batch::open(); }
void edge_transport::end_pass() { send_batch::close(); }
bool edge_transport::holding() { return send_batch::holding(); }
void edge_transport::flush() { send_batch::flush(); }

bulk_endpoint edge_transport::endpoint() {
  open_receivers();
  bulk_endpoint at = bulk_in_ ? bulk_in_->endpoint() : bulk_endpoint{};
  if (shm_in_) shm_in_->describe(at);
  return at;
}

void edge_transport::accept(const rendezvous_actor& edge) {
  if (bulk_in_) bulk_in_->route(edge);
}

void edge_transport::forget(const rendezvous_actor& edge) {
  if (bulk_in_) bulk_in_->unroute(edge.id());
}

std::shared_ptr<variable_home> edge_transport::variables_home() const { return shm_out_; }

}  // namespace caflow
