#pragma once
// Families of element-wise ops: which ops each holds and the element types each op has
// kernels for, the same on every device, so a graph finds kernels for the same dtypes
// wherever it is placed. A device registers a family by naming its kernel templates, one per
// op, in the order of the family's parameters:
//
//   const cwise::arithmetic_kernels<add_op, sub_op, mul_op, real_div_op> arithmetic(device_cpu);
#include <cstdint>

#include "kernels/framework/kernel_registry.hpp"

namespace caflow::cwise {

using number_types = type_list<float, double, int32_t, int64_t>;
using real_types = type_list<float, double>;
using ordered_types = type_list<float, double, int32_t, int64_t, uint8_t>;

namespace detail {

// Registers K<T> for op on device, for every T of the list, constrained on attr "T".
template <template <class> class K, class... Ts>
void register_typed(const char* op, const char* device, type_list<Ts...>) {
  typed_kernel_registrar<K, Ts...>(op, device, "T");
}

}  // namespace detail

// Add and AddV2 (both Add's kernel), Sub and Mul over number_types; RealDiv over real_types.
// A device with memory of its own leaves int32 out (Types = device_number_types): its int32
// arithmetic is shape arithmetic, computed on the host (host_int32_arithmetic), as TF does.
template <template <class> class Add, template <class> class Sub, template <class> class Mul,
          template <class> class RealDiv, class Types = number_types>
struct arithmetic_kernels {
  explicit arithmetic_kernels(const char* device) {
    detail::register_typed<Add>("Add", device, Types{});
    detail::register_typed<Add>("AddV2", device, Types{});
    detail::register_typed<Sub>("Sub", device, Types{});
    detail::register_typed<Mul>("Mul", device, Types{});
    detail::register_typed<RealDiv>("RealDiv", device, real_types{});
  }
};
using device_number_types = type_list<float, double, int64_t>;

// The host's int32 Add, AddV2, Sub and Mul registered for `device`, every arg in host memory.
template <template <class> class Add, template <class> class Sub, template <class> class Mul>
struct host_int32_arithmetic {
  explicit host_int32_arithmetic(const char* device) {
    for (const char* op : {"Add", "AddV2"}) add<Add<int32_t>>(op, device);
    add<Sub<int32_t>>("Sub", device);
    add<Mul<int32_t>>("Mul", device);
  }

 private:
  template <class K>
  static void add(const char* op, const char* device) {
    kernel_registry::global().add(
        kernel_def_builder(op).device(device).type_constraint<int32_t>("T").host_memory("x").host_memory("y").host_memory("z").build(
            [](kernel_construction& c) -> std::unique_ptr<op_kernel> { return std::make_unique<K>(c); }));
  }
};

// Equal over all_dtypes; Greater and Less over ordered_types.
template <template <class> class Equal, template <class> class Greater,
          template <class> class Less>
struct comparison_kernels {
  explicit comparison_kernels(const char* device) {
    detail::register_typed<Equal>("Equal", device, all_dtypes{});
    detail::register_typed<Greater>("Greater", device, ordered_types{});
    detail::register_typed<Less>("Less", device, ordered_types{});
  }
};

}  // namespace caflow::cwise
