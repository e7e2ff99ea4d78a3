// Tensor archives and tensor-list archives (a checkpoint shard's payload): deserialize_tensor
// and deserialize_tensors on arbitrary bytes.
#include "fuzz/archive_inputs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace caflow;
  fuzz::for_raw_and_resealed(data, size, [](std::string_view bytes) {
    if (auto t = deserialize_tensor(bytes); t.ok()) {
      (void)t->debug_string(8);
      fuzz::check_stable(
          *t, [](const tensor& x) { return serialize_tensor(x); },
          [](std::string_view b) { return deserialize_tensor(b); }, "tensor");
    }
    if (auto list = deserialize_tensors(bytes); list.ok())
      fuzz::check_stable(
          *list, [](const std::vector<named_tensor>& x) { return serialize_tensors(x); },
          [](std::string_view b) { return deserialize_tensors(b); }, "tensor list");
  });
  return 0;
}
