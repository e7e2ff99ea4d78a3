#pragma once
// Kernels are registered per (op, device type) with dtype constraints on type attrs, one line
// each; a lookup that finds nothing is an error naming the op, device and dtypes. Example:
//
//   CAFLOW_REGISTER_KERNEL(kernel_def_builder("Identity").device(device_cpu), identity_op);
//   CAFLOW_REGISTER_TYPED_KERNELS("Add", device_cpu, "T", add_kernel, float, double, int32_t);
//
// where add_kernel is a class template over the element type.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/op_kernel.hpp"

namespace caflow {

using kernel_factory = std::function<std::unique_ptr<op_kernel>(kernel_construction&)>;

struct kernel_def {
  std::string op;
  std::string device_type;
  std::vector<std::pair<std::string, dtype>> constraints;  // type attr == dtype
  kernel_factory factory;
};

class kernel_def_builder {
 public:
  explicit kernel_def_builder(std::string op) { def_.op = std::move(op); }
  kernel_def_builder& device(std::string type) {
    def_.device_type = std::move(type);
    return *this;
  }
  kernel_def_builder& type_constraint(std::string attr, dtype t) {
    def_.constraints.emplace_back(std::move(attr), t);
    return *this;
  }
  template <class T>
  kernel_def_builder& type_constraint(std::string attr) {
    return type_constraint(std::move(attr), dtype_v<T>);
  }
  kernel_def build(kernel_factory f) const {
    kernel_def d = def_;
    d.factory = std::move(f);
    return d;
  }

 private:
  kernel_def def_;
};

class kernel_registry {
 public:
  // Filled during static initialization, read-only afterwards.
  static kernel_registry& global();
  void add(kernel_def def);
  // The matching kernel def, or nullptr.
  const kernel_def* find(const node_def& node, std::string_view device_type) const;
  bool has_kernel(const node_def& node, std::string_view device_type) const {
    return find(node, device_type) != nullptr;
  }
  // Builds the kernel for a node; errors name the node, the device and any constructor error.
  status_or<std::unique_ptr<op_kernel>> create(const node_def& node, const node_signature& sig,
                                               device& dev) const;
  // "float32, int32" etc: the dtypes registered for (op, device_type, attr), for messages.
  std::string registered_types(std::string_view op, std::string_view device_type) const;

 private:
  std::map<std::pair<std::string, std::string>, std::vector<kernel_def>, std::less<>> defs_;
};

struct kernel_registrar {
  kernel_registrar(kernel_def def) { kernel_registry::global().add(std::move(def)); }  // NOLINT
};

template <template <class> class K, class... Ts>
struct typed_kernel_registrar {
  typed_kernel_registrar(const char* op, const char* device_type, const char* attr) {
    (kernel_registry::global().add(
         kernel_def_builder(op).device(device_type).type_constraint<Ts>(attr).build(
             [](kernel_construction& c) -> std::unique_ptr<op_kernel> {
               return std::make_unique<K<Ts>>(c);
             })),
     ...);
  }
};

template <class... Ts>
struct type_list {};
using all_dtypes = type_list<float, double, int32_t, int64_t, uint8_t, bool>;

// For kernels typed on two attrs (Cast's SrcT and DstT, Fill's T and index_type): registers
// K<A, B> for every A in As and B in Bs, constrained on attr_a == A and attr_b == B.
//   static const typed_kernel_registrar2<cast_op, all_dtypes, all_dtypes> cast_kernels(
//       "Cast", device_cpu, "SrcT", "DstT");
template <template <class, class> class K, class As, class Bs>
struct typed_kernel_registrar2;

template <template <class, class> class K, class... As, class... Bs>
struct typed_kernel_registrar2<K, type_list<As...>, type_list<Bs...>> {
  typed_kernel_registrar2(const char* op, const char* device_type, const char* attr_a,
                          const char* attr_b) {
    (add_row<As>(op, device_type, attr_a, attr_b), ...);
  }

 private:
  template <class A>
  static void add_row(const char* op, const char* device_type, const char* attr_a,
                      const char* attr_b) {
    (kernel_registry::global().add(
         kernel_def_builder(op)
             .device(device_type)
             .type_constraint(attr_a, dtype_v<A>)
             .type_constraint(attr_b, dtype_v<Bs>)
             .build([](kernel_construction& c) -> std::unique_ptr<op_kernel> {
               return std::make_unique<K<A, Bs>>(c);
             })),
     ...);
  }
};

}  // namespace caflow

#define CAFLOW_REGISTER_KERNEL(builder, ...)                                                  \
  static const ::caflow::kernel_registrar CAFLOW_CONCAT(caflow_kernel_registrar_, __COUNTER__)( \
      (builder).build([](::caflow::kernel_construction& c) -> std::unique_ptr<::caflow::op_kernel> { \
        return std::make_unique<__VA_ARGS__>(c);                                               \
      }))

#define CAFLOW_REGISTER_TYPED_KERNELS(op, device_type, attr, kernel, ...)       \
  static const ::caflow::typed_kernel_registrar<kernel, __VA_ARGS__> CAFLOW_CONCAT( \
      caflow_typed_kernel_registrar_, __COUNTER__)(op, device_type, attr)
