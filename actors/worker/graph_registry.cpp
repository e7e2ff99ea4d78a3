#include "actors/worker/graph_registry.hpp"

#include <algorithm>
#include <cstdio>

#include <caf/actor_system.hpp>
#include <caf/send.hpp>

#include "actors/rendezvous/rendezvous_actor.hpp"
#include "graph/ir/partition.hpp"
#include "graph/ir/serialization.hpp"
#include "net/errors.hpp"

namespace caflow::worker_internal {
namespace {

std::string hex(uint64_t x) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(x));
  return buf;
}

std::string device_names(const std::vector<task_device>& devices) {
  std::string out;
  for (const task_device& d : devices) out += (out.empty() ? "" : ", ") + d.dev->name();
  return out;
}

status check_bindings(const registered_graph& g, const bind_request& req) {
  if (req.send_keys.size() != req.send_endpoints.size())
    return errors::invalid_argument("binding graph '", g.handle, "': ", req.send_keys.size(),
                                    " send keys but ", req.send_endpoints.size(), " endpoints");
  if (!req.send_bulk.empty() && req.send_bulk.size() != req.send_keys.size())
    return errors::invalid_argument("binding graph '", g.handle, "': ", req.send_keys.size(),
                                    " send keys but ", req.send_bulk.size(),
                                    " bulk endpoints");
  std::set<std::string> seen;
  for (size_t i = 0; i < req.send_keys.size(); ++i) {
    const std::string& key = req.send_keys[i];
    if (!g.send_keys.count(key))
      return errors::invalid_argument("graph '", g.handle, "' has no _Send with the key '", key,
                                      "'");
    if (!seen.insert(key).second)
      return errors::invalid_argument("binding graph '", g.handle, "': the key '", key,
                                      "' is bound twice");
    if (!req.send_endpoints[i])
      return errors::invalid_argument("binding graph '", g.handle, "': the key '", key,
                                      "' is bound to an invalid actor handle");
  }
  for (const std::string& key : g.send_keys)
    if (!seen.count(key))
      return errors::invalid_argument("binding graph '", g.handle, "' leaves the _Send key '", key,
                                      "' unbound");
  return {};
}

}  // namespace

graph_registry::~graph_registry() {
  for (auto& [key, e] : endpoints_) caf::anon_send_exit(e.actor, caf::exit_reason::user_shutdown);
}

const task_device* graph_registry::find_device(const std::string& name) const {
  for (const task_device& d : *ctx_.devices)
    if (d.dev->name() == name) return &d;
  return nullptr;
}

// Records what the runtime needs of one node of a partition and checks it belongs here.
status graph_registry::read_node(const std::string& dev, const node_def& n, registered_graph& g,
                                 std::set<std::string>& recv_seen) const {
  if (n.device != dev)
    return errors::invalid_argument("node '", n.name, "' (", n.op, ") is placed on '", n.device,
                                    "', not on the partition's device");
  if (n.op == "_Arg" || n.op == "_Retval") {
    int64_t index = 0;
    CAFLOW_RETURN_IF_ERROR(get_attr(n, "index", &index));
    if (index < 0 || index >= max_rets)
      return errors::invalid_argument("node '", n.name, "' (", n.op, ") has index ", index);
    if (n.op == "_Arg")
      g.arg_indices.push_back(index);
    else
      g.rets_needed = std::max(g.rets_needed, index + 1);
    return {};
  }
  if (n.op != "_Send" && n.op != "_Recv") return {};
  const std::string key = rendezvous_key(n);
  CAFLOW_ASSIGN_OR_RETURN(parsed_rendezvous_key k, parse_rendezvous_key(key));
  if (n.op == "_Send") {
    if (k.send_device != dev)
      return errors::invalid_argument("node '", n.name, "' (_Send) sends from ", k.send_device,
                                      ", not from the partition's device");
    if (k.send_device_incarnation != 0 && k.send_device_incarnation != ctx_.incarnation)
      return errors::failed_precondition(
          "node '", n.name, "' (_Send) was partitioned for incarnation ",
          hex(k.send_device_incarnation), " of ", dev, ", but task ", ctx_.task_name,
          " is incarnation ", hex(ctx_.incarnation), " (it restarted): partition again");
    if (!g.send_keys.insert(key).second)
      return errors::invalid_argument("node '", n.name, "' (_Send) repeats the key '", key, "'");
    return {};
  }
  if (k.recv_device != dev)
    return errors::invalid_argument("node '", n.name, "' (_Recv) receives on ", k.recv_device,
                                    ", not on the partition's device");
  if (!recv_seen.insert(key).second)
    return errors::invalid_argument("node '", n.name, "' (_Recv) repeats the key '", key, "'");
  g.recv_keys.push_back(key);
  return {};
}

status_or<graph_ptr> graph_registry::compile(const register_graph_request& req) {
  const task_device* target = find_device(req.device);
  if (!target)
    return errors::invalid_argument("it was sent to the worker of task ", ctx_.task_name,
                                    ", which has no such device (it has ",
                                    device_names(*ctx_.devices), ")");
  const device& cpu = *ctx_.devices->front().dev;
  CAFLOW_ASSIGN_OR_RETURN(graph_def def, deserialize_graph(req.graph, cpu.get_allocator()));
  CAFLOW_ASSIGN_OR_RETURN(graph built, graph::build(std::move(def)));
  auto g = std::make_shared<registered_graph>();
  g->session = req.session;
  g->dev = target->actor;
  g->start_here = target->dev->memory() == nullptr;
  std::set<std::string> recv_seen;
  for (const graph_node& n : built.nodes())
    CAFLOW_RETURN_IF_ERROR(read_node(req.device, *n.def, *g, recv_seen));
  session_kernels& kernels = sessions_[req.session];
  auto ex = executor::create(std::make_shared<const graph>(std::move(built)), *target->dev,
                             kernels.cache.get());
  if (!ex.ok()) {
    if (kernels.graphs == 0) sessions_.erase(req.session);
    return ex.get_status();
  }
  ++kernels.graphs;
  g->exec = std::move(ex).value();
  g->exec->set_trace(ctx_.trace);
  return g;
}

status_or<register_graph_reply> graph_registry::add(caf::actor_system& sys,
                                                    const register_graph_request& req,
                                                    const caf::actor_addr& owner) {
  auto compiled = compile(req);
  if (!compiled.ok()) return compiled.get_status().with_context("partition for " + req.device);
  graph_ptr g = std::move(compiled).value();
  g->owner = owner;
  g->handle = ctx_.task_name + "/graph_" + std::to_string(next_graph_++);
  device& cpu = *ctx_.devices->front().dev;
  g->rdv = std::make_shared<remote_rendezvous>(ctx_.local, cpu, remote_rendezvous::bindings{},
                                               ctx_.transport);
  // Only a partition that receives values needs this task's receiving channels open.
  register_graph_reply reply{g->handle, ctx_.incarnation, g->recv_keys, {},
                             g->recv_keys.empty() ? bulk_endpoint{} : ctx_.transport->endpoint()};
  for (const std::string& key : g->recv_keys) {
    edge_endpoint& e = endpoints_[key];
    if (!e.actor) {
      e.actor = spawn_rendezvous_actor(sys, key, ctx_.local, ctx_.finished,
                                       ctx_.transport->shared_memory(),
                                       ctx_.max_pending_steps_per_edge, ctx_.stale_value_after,
                                       e.graphs);
      ctx_.transport->accept(e.actor);
    }
    ++*e.graphs;
    reply.recv_endpoints.push_back(e.actor);
  }
  graphs_.emplace(g->handle, std::move(g));
  return reply;
}

status graph_registry::bind(const bind_request& req) {
  auto found = graphs_.find(req.graph_handle);
  if (found == graphs_.end())
    return errors::not_found("no graph '", req.graph_handle, "' is registered on task ",
                             ctx_.task_name);
  registered_graph& g = *found->second;
  CAFLOW_RETURN_IF_ERROR(check_bindings(g, req));
  remote_rendezvous::bindings sends;
  for (size_t i = 0; i < req.send_keys.size(); ++i)
    sends.emplace(req.send_keys[i],
                  remote_rendezvous::binding{req.send_endpoints[i], req.send_bulk.empty()
                                                                        ? bulk_endpoint{}
                                                                        : req.send_bulk[i]});
  g.rdv = std::make_shared<remote_rendezvous>(ctx_.local, *ctx_.devices->front().dev, sends,
                                              ctx_.transport);
  g.bound = true;
  return {};
}

status graph_registry::remove(const std::string& handle) {
  auto found = graphs_.find(handle);
  if (found == graphs_.end())
    return errors::not_found("no graph '", handle, "' is registered on task ", ctx_.task_name);
  graph_ptr g = std::move(found->second);
  graphs_.erase(found);
  g->retired = true;
  if (g->running == 0) release(*g);
  return {};
}

size_t graph_registry::remove_owned_by(const caf::actor_addr& owner) {
  if (!owner) return 0;
  std::vector<std::string> owned;
  for (const auto& [handle, g] : graphs_)
    if (g->owner == owner) owned.push_back(handle);
  for (const std::string& handle : owned) static_cast<void>(remove(handle));
  return owned.size();
}

graph_ptr graph_registry::find(const std::string& handle) const {
  auto found = graphs_.find(handle);
  return found == graphs_.end() ? nullptr : found->second;
}

void graph_registry::finish_run(registered_graph& g) {
  --g.running;
  if (g.retired && g.running == 0) release(g);
}

const rendezvous_actor* graph_registry::endpoint(const std::string& recv_key) const {
  auto e = endpoints_.find(recv_key);
  return e == endpoints_.end() ? nullptr : &e->second.actor;
}

void graph_registry::release(const registered_graph& g) {
  for (const std::string& key : g.recv_keys) {
    auto e = endpoints_.find(key);
    if (e == endpoints_.end() || --*e->second.graphs > 0) continue;
    ctx_.transport->forget(e->second.actor);
    caf::anon_send_exit(e->second.actor, caf::exit_reason::user_shutdown);
    endpoints_.erase(e);
  }
  auto s = sessions_.find(g.session);
  if (s != sessions_.end() && --s->second.graphs == 0) sessions_.erase(s);
}

}  // namespace caflow::worker_internal
