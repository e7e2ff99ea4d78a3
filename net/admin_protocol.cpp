#include "net/admin_protocol.hpp"

#include <caf/actor_system_config.hpp>

namespace caflow {

void add_admin_wire_types(caf::actor_system_config& cfg) {
  cfg.add_message_type<admin_query>("caflow::admin_query");
  cfg.add_message_type<admin_table>("caflow::admin_table");
  cfg.add_message_type<trace_event>("caflow::trace_event");
  cfg.add_message_type<variable_shard>("caflow::variable_shard");
  cfg.add_message_type<admin_reply>("caflow::admin_reply");
  cfg.add_message_type<master_snapshot>("caflow::master_snapshot");
  cfg.add_message_type<summary_report>("caflow::summary_report");
  cfg.add_message_type<admin_actor>("caflow::admin_actor");
}

}  // namespace caflow
