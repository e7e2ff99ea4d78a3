#include "graph/ir/run_signature.hpp"

namespace caflow {

status run_contract::check_feed(size_t i, const std::string& name, const tensor& t) const {
  if (t.initialized() && t.type() == feed_types[i] && feed_shapes[i].compatible_with(t.shape()))
    [[likely]]
    return {};
  return errors::invalid_argument(
      "feed '", name, "' expects ", dtype_name(feed_types[i]), feed_shapes[i].to_string(),
      " but got ", t.initialized() ? dtype_name(t.type()) : "an uninitialized tensor",
      t.initialized() ? t.shape().to_string() : "");
}

}  // namespace caflow
