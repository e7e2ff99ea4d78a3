#include "kernels/framework/rendezvous.hpp"

namespace caflow {

rendezvous::~rendezvous() = default;

std::shared_ptr<allocator> rendezvous::output_allocator(const std::string&) { return nullptr; }

}  // namespace caflow
