#include "net/protocol.hpp"

#include <caf/actor_system_config.hpp>

#include "net/errors.hpp"

namespace caflow {

void add_wire_types(caf::actor_system_config& cfg) {
  cfg.add_message_type<wire_tensor>("caflow::wire_tensor");
  cfg.add_message_type<register_graph_request>("caflow::register_graph_request");
  cfg.add_message_type<register_graph_reply>("caflow::register_graph_reply");
  cfg.add_message_type<bind_request>("caflow::bind_request");
  cfg.add_message_type<run_graph_request>("caflow::run_graph_request");
  cfg.add_message_type<run_graph_reply>("caflow::run_graph_reply");
  cfg.add_message_type<edge_value>("caflow::edge_value");
  cfg.add_message_type<edge_chunk>("caflow::edge_chunk");
  cfg.add_message_type<edge_shm>("caflow::edge_shm");
  cfg.add_message_type<edge_batch>("caflow::edge_batch");
  cfg.add_message_type<step_error>("caflow::step_error");
  cfg.add_message_type<run_step_request>("caflow::run_step_request");
  cfg.add_message_type<run_step_reply>("caflow::run_step_reply");
  cfg.add_message_type<session_config>("caflow::session_config");
  cfg.add_message_type<worker_actor>("caflow::worker_actor");
  cfg.add_message_type<master_actor>("caflow::master_actor");
  cfg.add_message_type<rendezvous_actor>("caflow::rendezvous_actor");
  add_admin_wire_types(cfg);
  cfg.add_error_category(caflow_error_category, render_caflow_error);
}

}  // namespace caflow
