#include "actors/session/remote_client.hpp"

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <caf/logger.hpp>
#include <future>
#include <atomic>
#include <random>

#include "net/wire/chunked_values.hpp"
#include "actors/server/local_masters.hpp"
#include "graph/ir/serialization.hpp"
#include "graph/platform/thread_sanitizer.hpp"
#include "net/errors.hpp"
#include "net/loop/local_step_answer.hpp"
#include "net/loop/loop_scheduler.hpp"
#include "net/middleman.hpp"
#include "net/protocol.hpp"

namespace caflow {
namespace {

struct client_config : caf::actor_system_config {
  explicit client_config(const transport_security& security) {
    // Patient: a client fails its running step when it loses the master
    // (ask_watching_master below).
    configure_network(*this, failure_detection::patient(), security);
    run_actors_on_network_loop(*this);
  }
};

// CAF 0.17 ties a thread to the logger of the actor system it last spawned an actor in (a
// scoped_actor too), and ~actor_system waits until no thread holds its logger. A client spawns
// on its caller's thread: in the master's own system for a server in this process, in the
// client's otherwise. A server (or client) destroyed by another thread while the caller's
// thread held it waited for that thread for ever, so each call lets go when it returns.
class logger_release {
 public:
  logger_release() = default;
  logger_release(const logger_release&) = delete;
  logger_release& operator=(const logger_release&) = delete;
  ~logger_release() { caf::logger::set_current_actor_system(nullptr); }
};

uint64_t random_64() {
  std::random_device rd;  // 32 bits a draw
  return (uint64_t{rd()} << 32) ^ rd();
}

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
  caf::actor_addr local;       // a master in this process (actors/server/local_masters.hpp)
  std::string target;
  std::string session;  // the master's handle, once created
  std::chrono::milliseconds step_timeout{60000};
  std::chrono::microseconds busy_poll = default_busy_poll;  // before sleeping on a step's answer
  session_config config;
  // Names the chunked transfers of this client's steps; runs may come from several threads.
  std::atomic<uint64_t> next_transfer{random_64()};

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

  // Whose actor asks `m`: for a master in this process, one of the master's own system, whose
  // server then waits for the call before it goes away; otherwise the client's.
  caf::actor_system& caller_system(const master_actor& m) { return local ? m.home_system() : sys; }

  // One request, waited for; `on_reply` takes the answer. A master in another process is
  // watched meanwhile: one that goes away (its process died, or the link broke) fails the call
  // once failure detection notices, instead of at `timeout` (a session's creation may wait that
  // long for the tasks it needs).
  template <class Reply, class... Args, class OnReply>
  status call(std::chrono::milliseconds timeout, OnReply on_reply, Args... args) {
    auto m = master_now();
    if (!m) return gone();
    if (local) {
      caf::scoped_actor self{caller_system(m)};
      status result;
      self->request(m, timeout, std::move(args)...)
          .receive(on_reply, [&](caf::error& e) {
            result = to_status(e).with_context("master at " + target);
          });
      return result;
    }
    auto done = std::make_shared<std::promise<status_or<Reply>>>();
    auto answer = done->get_future();
    // `m` is an argument, not a capture: CAF 0.17 dereferences a null tuple pointer when a
    // spawned function has none.
    sys.spawn(
        [done, timeout, where = target, args...](caf::event_based_actor* self, master_actor m) {
          auto finish = [self, done](status_or<Reply> r) {
            done->set_value(std::move(r));
            self->quit();
          };
          self->monitor(m);
          self->set_down_handler([self, finish, where](caf::down_msg& dm) {
            finish(errors::unavailable("master at ", where, " was lost (",
                                       self->system().render(dm.reason), ")"));
          });
          self->request(m, timeout, args...)
              .then([finish](Reply& r) { finish(std::move(r)); },
                    [finish, where](caf::error& e) {
                      finish(to_status(e).with_context("master at " + where));
                    });
        },
        m);
    auto got = answer.get();
    if (!got.ok()) return got.get_status();
    on_reply(*got);
    return {};
  }
};

namespace {

// Puts the fetches `reply` lists as sent ahead in chunks, which `arrivals` took, into it.
status claim_chunked_fetches(chunked_arrivals& arrivals, run_step_reply& reply) {
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

// One step asked of a master in another process.
struct remote_step {
  master_actor master;
  run_step_request req;
  std::vector<std::pair<size_t, tensor>> chunked_feeds;  // go ahead of the request
  std::chrono::milliseconds timeout;
  std::string target;
  std::promise<status_or<run_step_reply>> done;
};

// Asks for the step from an actor of its own that watches the master, so a lost master (its
// process died, or the link broke) fails the step once failure detection notices, not at the
// step timeout: a blocking actor waiting for a response sees no down message. Big feeds go
// ahead of the request from this actor, big fetches come to it ahead of the reply.
caf::behavior ask_watching_master(caf::event_based_actor* self, std::shared_ptr<remote_step> step) {
  auto arrivals = std::make_shared<chunked_arrivals>();
  // Each path quits, so at most one of them runs.
  auto finish = [self, step](status_or<run_step_reply> r) {
    step->done.set_value(std::move(r));
    self->quit();
  };
  self->monitor(step->master);
  self->set_down_handler([self, step, finish](caf::down_msg& dm) {
    finish(errors::unavailable("master at ", step->target, " was lost in the middle of the step (",
                               self->system().render(dm.reason), ")"));
  });
  for (const auto& [i, t] : step->chunked_feeds)
    send_chunks(self, step->master, step->req.transfer, chunk_key("feed", i), t);
  self->request(step->master, step->timeout, cf_step_atom::value, std::move(step->req))
      .then(
          [arrivals, finish](run_step_reply& r) {
            status claimed = claim_chunked_fetches(*arrivals, r);
            finish(claimed.ok() ? status_or<run_step_reply>(std::move(r))
                                : status_or<run_step_reply>(claimed));
          },
          [step, finish](caf::error& e) {
            finish(to_status(e).with_context("master at " + step->target));
          });
  return {[arrivals](cf_chunk_atom, const edge_chunk& c) { (void)arrivals->take(c); }};
}

}  // namespace

remote_client::remote_client(std::unique_ptr<impl> i) : impl_(std::move(i)) {}
remote_client::~remote_client() = default;

status_or<std::unique_ptr<remote_client>> remote_client::connect(
    const std::string& target, std::chrono::milliseconds patience,
    std::chrono::milliseconds step_timeout, session_config config,
    const transport_security& security, std::chrono::microseconds busy_poll) {
  logger_release released;
  CAFLOW_ASSIGN_OR_RETURN(host_port where, parse_target(target));
  CAFLOW_RETURN_IF_ERROR(validate(security));
  auto i = std::make_unique<impl>(security);
  i->target = target;
  i->step_timeout = step_timeout;
  i->busy_poll = busy_poll;
  i->config = std::move(config);
  if ((i->local = find_local_master(target, security)))
    return std::unique_ptr<remote_client>(new remote_client(std::move(i)));
  CAFLOW_ASSIGN_OR_RETURN(caf::strong_actor_ptr found,
                          find_remote_role(i->sys, where, master_role, patience));
  i->master = caf::actor_cast<master_actor>(found);
  return std::unique_ptr<remote_client>(new remote_client(std::move(i)));
}

status remote_client::extend(const graph_def& more) {
  logger_release released;
  const std::string bytes = serialize_graph(more);
  // Creating a session may wait for the tasks it needs (the master's peer wait, 30 s by
  // default): bounded by the client's step timeout instead, a lost master by failure detection.
  const auto timeout = std::max(scaled(std::chrono::milliseconds{60000}), impl_->step_timeout);
  if (impl_->session.empty())
    return impl_->call<std::string>(timeout, [&](std::string& handle) { impl_->session = handle; },
                                    cf_create_atom::value, bytes, impl_->config);
  return impl_->call<bool>(timeout, [](bool) {}, cf_extend_atom::value, impl_->session, bytes);
}

status remote_client::open() {
  if (!impl_->session.empty()) return {};
  return extend(graph_def{});
}

status remote_client::report_summaries(summary_report report) {
  if (impl_->session.empty()) return errors::failed_precondition("no session on the master yet");
  auto master = impl_->master_now();
  if (!master) return impl_->gone();
  caf::anon_send(master, cf_summary_atom::value, impl_->session, std::move(report));
  return {};
}

status_or<std::vector<tensor>> remote_client::run(
    const std::vector<std::pair<std::string, tensor>>& feeds,
    const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
    run_step_reply* prepared, std::vector<trace_event>* trace) {
  logger_release released;
  CAFLOW_RETURN_IF_ERROR(open());
  auto master = impl_->master_now();
  if (!master) return impl_->gone();
  run_step_request req{impl_->session, {}, {}, fetches, targets, 0, {}, trace != nullptr};
  req.transfer = static_cast<int64_t>(impl_->next_transfer.fetch_add(1) & (~uint64_t{0} >> 1));
  std::vector<std::pair<size_t, tensor>> chunked_feeds;
  for (size_t i = 0; i < feeds.size(); ++i) {
    const auto& [name, t] = feeds[i];
    req.feed_names.push_back(name);
    tsan_release(t.raw_data());  // read by kernels on a device thread
    // In this process a feed travels as a handle to its bytes, whatever its size.
    if (!impl_->local && travels_in_chunks(t)) {
      chunked_feeds.emplace_back(i, t);
      req.chunked_feeds.push_back(static_cast<int32_t>(i));
      req.feeds.emplace_back();
    } else {
      req.feeds.push_back(wire_tensor{t});
    }
  }
  run_step_reply reply;
  if (impl_->local) {
    // A hand-over within one system, answered without an actor on this side
    // (net/loop/local_step_answer.hpp). Nothing comes in chunks in a process.
    auto answer = std::make_shared<local_step_answer>();
    // The handle goes with the send: held while waiting, it could outlive its actor system.
    caf::anon_send(std::exchange(master, master_actor{}), cf_step_atom::value, std::move(req),
                   std::make_shared<local_step_promise>(answer));
    auto answered = answer->wait(impl_->busy_poll, impl_->step_timeout);
    if (!answered.ok()) return answered.get_status().with_context("master at " + impl_->target);
    reply = std::move(answered).value();
  } else {
    auto step = std::make_shared<remote_step>();
    step->master = master;
    step->req = std::move(req);
    step->chunked_feeds = std::move(chunked_feeds);
    step->timeout = impl_->step_timeout;
    step->target = impl_->target;
    auto got = step->done.get_future();
    impl_->sys.spawn(ask_watching_master, step);
    // The request's own timeout ends it; the margin only guards against an actor that never ran.
    busy_wait([&] { return got.wait_for(std::chrono::seconds(0)) == std::future_status::ready; },
              impl_->busy_poll);
    if (got.wait_for(impl_->step_timeout + std::chrono::seconds(10)) != std::future_status::ready)
      return errors::deadline_exceeded("no answer from the master at ", impl_->target, " within ",
                                       impl_->step_timeout.count(), " ms");
    try {
      CAFLOW_ASSIGN_OR_RETURN(reply, got.get());
    } catch (const std::future_error&) {  // the actor went without an answer: its system stopped
      return errors::unavailable("the step asked of the master at ", impl_->target,
                                 " was dropped: the client is shutting down");
    }
  }
  std::vector<tensor> out;
  for (auto& w : reply.fetches) {
    tsan_acquire(w.value.raw_data());  // a kernel's output, written on a device thread
    out.push_back(std::move(w.value));
  }
  if (trace) *trace = std::move(reply.trace);
  if (prepared && (!reply.optimization.empty() || !reply.placement.empty())) {
    reply.fetches.clear();
    *prepared = std::move(reply);
  }
  return out;
}

}  // namespace caflow
