#include "actors/remote_client.hpp"

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <random>

#include "actors/chunked_values.hpp"
#include "actors/local_masters.hpp"
#include "graph/serialization.hpp"
#include "graph/thread_sanitizer.hpp"
#include "net/errors.hpp"
#include "net/middleman.hpp"
#include "net/protocol.hpp"

namespace caflow {
namespace {

struct client_config : caf::actor_system_config {
  explicit client_config(const transport_security& security) {
    configure_network(*this, failure_detection{}, security);
    set("scheduler.max-threads", 2);
  }
};

status_or<host_port> parse_target(const std::string& target) {
  constexpr std::string_view scheme = "caflow://";
  if (!std::string_view(target).starts_with(scheme))
    return errors::invalid_argument("session target '", target,
                                    "' is neither 'local' nor 'caflow://host:port'");
  auto hp = split_host_port(std::string_view(target).substr(scheme.size()));
  if (!hp.ok()) return hp.get_status().with_context("session target '" + target + "'");
  return hp;
}

}  // namespace

struct remote_client::impl {
  explicit impl(const transport_security& security) : cfg(security) {}

  client_config cfg;
  caf::actor_system sys{cfg};
  master_actor master;         // found over the network; unset for a master in this process
  caf::actor_addr local;       // a master in this process (actors/local_masters.hpp)
  std::string target;
  std::string session;  // the master's handle, once created
  std::chrono::milliseconds step_timeout{60000};
  session_config config;
  std::mt19937_64 transfer_ids{std::random_device{}()};

  ~impl() {
    if (!session.empty())
      if (auto m = master_now()) caf::anon_send(m, cf_close_atom::value, session);
  }

  // The master to ask now. A local master is held weakly between calls: its server may stop
  // first, and the actor must not outlive its actor system in our hands.
  master_actor master_now() const {
    return local ? caf::actor_cast<master_actor>(local) : master;
  }
  status gone() const { return errors::unavailable("master at ", target, " has stopped"); }

  // One blocking request; the reply handler fills `out`.
  template <class... Args, class OnReply>
  status call(std::chrono::milliseconds timeout, OnReply on_reply, Args&&... args) {
    auto m = master_now();
    if (!m) return gone();
    caf::scoped_actor self{sys};
    status result;
    self->request(m, timeout, std::forward<Args>(args)...)
        .receive(on_reply, [&](caf::error& e) {
          result = to_status(e).with_context("master at " + target);
        });
    return result;
  }
};

namespace {

// The fetches `reply` lists as sent ahead in chunks, from `self`'s mailbox into the reply.
status receive_chunked_fetches(caf::scoped_actor& self, run_step_reply& reply) {
  if (reply.chunked_fetches.empty()) return {};
  chunked_arrivals arrivals;
  const auto settled = [&] {
    for (int32_t i : reply.chunked_fetches)
      if (!arrivals.settled(reply.transfer, chunk_key("fetch", static_cast<size_t>(i))))
        return false;
    return true;
  };
  bool timed_out = false;
  // They are in the mailbox already (sent before the reply); the timeout only guards against
  // a master that announced chunks it never sent.
  while (!settled() && !timed_out)
    self->receive([&](cf_chunk_atom, const edge_chunk& c) { (void)arrivals.take(c); },
                  caf::after(scaled(std::chrono::seconds(10))) >> [&] { timed_out = true; });
  for (int32_t i : reply.chunked_fetches) {
    if (i < 0 || static_cast<size_t>(i) >= reply.fetches.size())
      return errors::internal("the master sent fetch #", i, " in chunks, but the step has ",
                              reply.fetches.size(), " fetches");
    CAFLOW_ASSIGN_OR_RETURN(tensor t,
                            arrivals.claim(reply.transfer, chunk_key("fetch", static_cast<size_t>(i))));
    reply.fetches[i] = wire_tensor{std::move(t)};
  }
  return {};
}

}  // namespace

remote_client::remote_client(std::unique_ptr<impl> i) : impl_(std::move(i)) {}
remote_client::~remote_client() = default;

status_or<std::unique_ptr<remote_client>> remote_client::connect(
    const std::string& target, std::chrono::milliseconds patience,
    std::chrono::milliseconds step_timeout, session_config config,
    const transport_security& security) {
  CAFLOW_ASSIGN_OR_RETURN(host_port where, parse_target(target));
  CAFLOW_RETURN_IF_ERROR(validate(security));
  auto i = std::make_unique<impl>(security);
  i->target = target;
  i->step_timeout = step_timeout;
  i->config = std::move(config);
  if ((i->local = find_local_master(target, security)))
    return std::unique_ptr<remote_client>(new remote_client(std::move(i)));
  CAFLOW_ASSIGN_OR_RETURN(caf::strong_actor_ptr found,
                          find_remote_role(i->sys, where, master_role, patience));
  i->master = caf::actor_cast<master_actor>(found);
  return std::unique_ptr<remote_client>(new remote_client(std::move(i)));
}

status remote_client::extend(const graph_def& more) {
  const std::string bytes = serialize_graph(more);
  const auto timeout = scaled(std::chrono::milliseconds{30000});
  if (impl_->session.empty())
    return impl_->call(timeout, [&](std::string& handle) { impl_->session = handle; },
                       cf_create_atom::value, bytes, impl_->config);
  return impl_->call(timeout, [](bool) {}, cf_extend_atom::value, impl_->session, bytes);
}

status_or<std::vector<tensor>> remote_client::run(
    const std::vector<std::pair<std::string, tensor>>& feeds,
    const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
    run_step_reply* prepared) {
  if (impl_->session.empty()) CAFLOW_RETURN_IF_ERROR(extend(graph_def{}));
  // One actor for the whole exchange: big feeds go ahead of the request from it, and big
  // fetches arrive in its mailbox ahead of the reply.
  auto master = impl_->master_now();
  if (!master) return impl_->gone();
  // For a master in this process, an actor of its own system: a hand-over within one system
  // (and its server waits for this call before it goes away).
  caf::scoped_actor self{impl_->local ? master.home_system() : impl_->sys};
  run_step_request req{impl_->session, {}, {}, fetches, targets, 0, {}};
  req.transfer = static_cast<int64_t>(impl_->transfer_ids() >> 1);
  for (size_t i = 0; i < feeds.size(); ++i) {
    const auto& [name, t] = feeds[i];
    req.feed_names.push_back(name);
    tsan_release(t.raw_data());  // read by kernels on a device thread
    // In this process a feed travels as a handle to its bytes, whatever its size.
    if (!impl_->local && travels_in_chunks(t)) {
      send_chunks(self.ptr(), master, req.transfer, chunk_key("feed", i), t);
      req.chunked_feeds.push_back(static_cast<int32_t>(i));
      req.feeds.emplace_back();
    } else {
      req.feeds.push_back(wire_tensor{t});
    }
  }
  run_step_reply reply;
  status result;
  self->request(master, impl_->step_timeout, cf_step_atom::value, std::move(req))
      .receive([&](run_step_reply& r) { reply = std::move(r); },
               [&](caf::error& e) { result = to_status(e).with_context("master at " + impl_->target); });
  CAFLOW_RETURN_IF_ERROR(result);
  CAFLOW_RETURN_IF_ERROR(receive_chunked_fetches(self, reply));
  std::vector<tensor> out;
  for (auto& w : reply.fetches) {
    tsan_acquire(w.value.raw_data());  // a kernel's output, written on a device thread
    out.push_back(std::move(w.value));
  }
  if (prepared && (!reply.optimization.empty() || !reply.placement.empty())) {
    reply.fetches.clear();
    *prepared = std::move(reply);
  }
  return out;
}

}  // namespace caflow
