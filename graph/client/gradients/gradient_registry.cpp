#include "graph/client/gradients/gradients.hpp"

namespace caflow {

gradient_registry& gradient_registry::global() {
  static gradient_registry registry;
  return registry;
}

void gradient_registry::add(std::string op, gradient_fn fn) { fns_[std::move(op)] = std::move(fn); }

void gradient_registry::add_sparse(std::string op, sparse_gradient_fn fn) {
  sparse_fns_[std::move(op)] = std::move(fn);
}

void gradient_registry::add_no_gradient(std::string op) { no_gradient_[std::move(op)] = true; }

const gradient_fn* gradient_registry::lookup(std::string_view op) const {
  auto it = fns_.find(op);
  return it == fns_.end() ? nullptr : &it->second;
}

const sparse_gradient_fn* gradient_registry::lookup_sparse(std::string_view op) const {
  auto it = sparse_fns_.find(op);
  return it == sparse_fns_.end() ? nullptr : &it->second;
}

bool gradient_registry::is_no_gradient(std::string_view op) const {
  return no_gradient_.find(op) != no_gradient_.end();
}

}  // namespace caflow
