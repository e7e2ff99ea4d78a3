#include "graph/ir/checkpoint_format.hpp"

namespace caflow {
namespace {

std::vector<std::unique_ptr<checkpoint_format>>& formats() {
  static std::vector<std::unique_ptr<checkpoint_format>> all;  // written at static init only
  return all;
}

}  // namespace

void register_checkpoint_format(std::unique_ptr<checkpoint_format> format) {
  formats().push_back(std::move(format));
}

const checkpoint_format* checkpoint_format_of(const std::string& prefix) {
  for (const auto& f : formats())
    if (f->holds(prefix)) return f.get();
  return nullptr;
}

}  // namespace caflow
