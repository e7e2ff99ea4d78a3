#pragma once
// Every type add_wire_types registers, by the name it registers it under, with what the wire
// fuzz target does to it and a small honest value of it for the seed corpus. wire_fuzz.cpp
// refuses to start when add_wire_types registers a "caflow::" type missing here.
#include <caf/all.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "net/protocol.hpp"

namespace caflow::fuzz {

struct wire_type {
  const char* name;
  // Reads `bytes` as one value; when that succeeds, writes the value and reads it back, which
  // must succeed too (aborts otherwise). False when `bytes` were refused.
  bool (*round_trip)(caf::actor_system& sys, std::span<const char> bytes);
  // The encoding of a small valid value.
  std::vector<char> (*example)(caf::actor_system& sys);
};

template <class T>
std::vector<char> encode(caf::actor_system& sys, T& value) {
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  if (auto err = sink(value)) {
    std::fprintf(stderr, "cannot write a value just read: %s\n", caf::to_string(err).c_str());
    std::abort();
  }
  return buf;
}

// CAF 0.17 never returns from writing an infinite float or double (detail::pack754 halves
// infinity until it drops below 2), although it reads one from a peer's bits. Values read
// with one are not written back here, so the fuzzer keeps exploring past it; the inputs that
// found it are corpus/wire/crash-*-infinite-*. (caflow's own doubles, the step latencies of
// latency_summary, must stay finite for the same reason.)
template <class T>
bool writes_infinity(const T&) {
  return false;
}
inline bool writes_infinity(const master_snapshot& x) {
  for (const auto& s : x.sessions)
    for (double d : {s.latency.p50_us, s.latency.p99_us, s.latency.steps_per_s})
      if (std::isinf(d)) return true;
  return false;
}

template <class T>
bool round_trip(caf::actor_system& sys, std::span<const char> bytes) {
  T value;
  caf::binary_deserializer source{sys, bytes.data(), bytes.size()};
  if (source(value)) return false;
  (void)caf::deep_to_string(value);  // the logging inspectors see forged values too
  if (writes_infinity(value)) return true;
  auto again = encode(sys, value);
  T back;
  caf::binary_deserializer reread{sys, again};
  if (auto err = reread(back)) {
    std::fprintf(stderr, "cannot read back a value just written: %s\n",
                 caf::to_string(err).c_str());
    std::abort();
  }
  return true;
}

inline tensor small_tensor() { return tensor::from_vector<float>({1.5f, -2, 0.25f, 4}, {2, 2}); }

// Honest values worth seeding beyond a default-constructed one.
template <class T>
std::vector<char> example_of(caf::actor_system& sys, T value) {
  return encode(sys, value);
}

inline const std::vector<wire_type>& wire_types() {
  static const std::vector<wire_type> types = {
      {"caflow::wire_tensor", &round_trip<wire_tensor>,
       [](caf::actor_system& sys) { return example_of(sys, wire_tensor{small_tensor()}); }},
      {"caflow::register_graph_request", &round_trip<register_graph_request>,
       [](caf::actor_system& sys) {
         register_graph_request r;
         r.session = "session-1";
         r.device = "/job:worker/replica:0/task:0/device:CPU:0";
         r.graph = "not a graph";
         return example_of(sys, r);
       }},
      {"caflow::register_graph_reply", &round_trip<register_graph_reply>,
       [](caf::actor_system& sys) {
         register_graph_reply r;
         r.graph_handle = "g1";
         r.incarnation = 7;
         r.recv_keys = {"a;b;x:0"};
         r.recv_endpoints = {rendezvous_actor{}};
         r.bulk = {"127.0.0.1", 4242, std::string(16, 'k'), "/run/user/1/caflow-shm.x/s", "boot", "s"};
         return example_of(sys, r);
       }},
      {"caflow::bind_request", &round_trip<bind_request>,
       [](caf::actor_system& sys) {
         bind_request r;
         r.graph_handle = "g1";
         r.send_keys = {"a;b;x:0"};
         r.send_endpoints = {rendezvous_actor{}};
         r.send_bulk = {{"127.0.0.1", 4242, std::string(16, 'k'), "", "", ""}};
         return example_of(sys, r);
       }},
      {"caflow::run_graph_request", &round_trip<run_graph_request>,
       [](caf::actor_system& sys) {
         run_graph_request r;
         r.graph_handle = "g1";
         r.step_id = 42;
         r.args = {wire_tensor{small_tensor()}, wire_tensor{tensor::scalar<int64_t>(3)}};
         r.num_rets = 1;
         return example_of(sys, r);
       }},
      {"caflow::run_graph_reply", &round_trip<run_graph_reply>,
       [](caf::actor_system& sys) {
         run_graph_reply r;
         r.rets = {wire_tensor{tensor::from_vector<bool>({true, false})}};
         r.sends.values = {edge_value{7, "k", wire_tensor{tensor::scalar(2.5f)}}};
         r.sends.to = {rendezvous_actor{}};
         return example_of(sys, r);
       }},
      {"caflow::edge_value", &round_trip<edge_value>,
       [](caf::actor_system& sys) {
         edge_value r;
         r.step_id = 5;
         r.key = "/job:worker/task:0;/job:ps/task:0;x:0";
         r.value = wire_tensor{tensor::from_vector<int32_t>({1, 2, 3})};
         return example_of(sys, r);
       }},
      {"caflow::edge_chunk", &round_trip<edge_chunk>,
       [](caf::actor_system& sys) {
         auto chunks = make_chunks(6, "k", tensor::from_vector<double>({1, 2, 3, 4}), 16);
         return example_of(sys, chunks.at(1));
       }},
      {"caflow::edge_shm", &round_trip<edge_shm>,
       [](caf::actor_system& sys) {
         edge_shm r{7, "k", static_cast<uint8_t>(dtype::float32), {2, 3}, 1, 64, 24};
         return example_of(sys, r);
       }},
      {"caflow::edge_batch", &round_trip<edge_batch>,
       [](caf::actor_system& sys) {
         edge_batch r;
         r.values = {edge_value{7, "k", wire_tensor{tensor::from_vector<float>({1, 2})}}};
         r.shared = {edge_shm{7, "s", static_cast<uint8_t>(dtype::float32), {2, 3}, 1, 64, 24}};
         r.to = {rendezvous_actor{}, rendezvous_actor{}};  // a null handle encodes as its id 0
         return example_of(sys, r);
       }},
      {"caflow::run_step_request", &round_trip<run_step_request>,
       [](caf::actor_system& sys) {
         run_step_request r;
         r.session = "s";
         r.feed_names = {"x"};
         r.feeds = {wire_tensor{small_tensor()}};
         r.fetches = {"y:0"};
         r.targets = {"train"};
         return example_of(sys, r);
       }},
      {"caflow::run_step_reply", &round_trip<run_step_reply>,
       [](caf::actor_system& sys) {
         run_step_reply r;
         r.fetches = {wire_tensor{tensor::scalar<double>(0.5)}, wire_tensor{}};
         r.optimization = "cse: 1";
         return example_of(sys, r);
       }},
      {"caflow::session_config", &round_trip<session_config>,
       [](caf::actor_system& sys) {
         session_config r;
         r.disabled_passes = {"cse"};
         return example_of(sys, r);
       }},
      {"caflow::worker_actor", &round_trip<worker_actor>,
       [](caf::actor_system& sys) { return example_of(sys, worker_actor{}); }},
      {"caflow::master_actor", &round_trip<master_actor>,
       [](caf::actor_system& sys) { return example_of(sys, master_actor{}); }},
      {"caflow::admin_query", &round_trip<admin_query>,
       [](caf::actor_system& sys) { return example_of(sys, admin_query{{"var", "w"}}); }},
      {"caflow::admin_table", &round_trip<admin_table>,
       [](caf::actor_system& sys) {
         return example_of(sys, admin_table{{"name", "value"}, {{"w", "1"}, {"b", "2"}}, {"ok"}});
       }},
      {"caflow::trace_event", &round_trip<trace_event>,
       [](caf::actor_system& sys) {
         return example_of(sys, trace_event{"ps:0", "CPU:0", "n", "MatMul", "", 3, 10, 5, 64});
       }},
      {"caflow::admin_reply", &round_trip<admin_reply>,
       [](caf::actor_system& sys) {
         admin_reply r;
         r.table.columns = {"a"};
         r.events.push_back(trace_event{"w:0", "CPU:0", "s", "_Send", "ps", 1, 2, 3, 4, "a;b;c"});
         r.shards.push_back(variable_shard{"emb", "emb/part_0", "ps:0", "CPU:0", "float32",
                                           "[4,4]", "[10,4]", 10, 0, 4, 64, true, 1.5, 16, {}});
         r.clock_us = 99;
         r.clock_domain = "boot:1234";
         return example_of(sys, r);
       }},
      {"caflow::master_snapshot", &round_trip<master_snapshot>,
       [](caf::actor_system& sys) {
         master_snapshot r;
         session_summary s;
         s.handle = "s1";
         s.running = {4, 5};
         s.partitions.push_back(partition_summary{0, "worker:0", "CPU:0", 12});
         r.sessions.push_back(s);
         return example_of(sys, r);
       }},
      {"caflow::admin_actor", &round_trip<admin_actor>,
       [](caf::actor_system& sys) { return example_of(sys, admin_actor{}); }},
      // Added last, so the selectors of the older types (and their crash inputs) stay.
      {"caflow::rendezvous_actor", &round_trip<rendezvous_actor>,
       [](caf::actor_system& sys) { return example_of(sys, rendezvous_actor{}); }},
      {"caflow::step_error", &round_trip<step_error>,
       [](caf::actor_system& sys) {
         return example_of(sys, step_error{2, "node 'mm' (MatMul) on /job:w/replica:0/task:1/"
                                              "device:CPU:0: bad shape",
                                           "mm", "/job:w/replica:0/task:1/device:CPU:0",
                                           "/job:w/replica:0/task:1"});
       }},
      // Appended: a seed selects its type by index.
      {"caflow::variable_shard", &round_trip<variable_shard>,
       [](caf::actor_system& sys) {
         return example_of(sys, variable_shard{"emb", "emb/part_1", "ps:1", "CPU:0", "float32",
                                               "[3,4]", "[10,4]", 10, 4, 3, 48, true, 2.5, 12,
                                               {"1", "2"}});
       }},
      {"caflow::summary_report", &round_trip<summary_report>,
       [](caf::actor_system& sys) {
         return example_of(sys, summary_report{"/tmp/tb", "/tmp/tb/events.out.tfevents.1.h",
                                               {{"loss", 10, 0.25, 1700000000000000}}});
       }},
  };
  return types;
}

// The selector byte of a wire fuzz input: below wire_types().size() the rest is one value of
// that type; this one means the rest is a whole caf::message, read as BASP reads one.
inline uint8_t message_selector() { return static_cast<uint8_t>(wire_types().size()); }

}  // namespace caflow::fuzz
