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

#include "kernels/framework/op_kernel.hpp"

namespace caflow {

using kernel_factory = std::function<std::unique_ptr<op_kernel>(kernel_construction&)>;

struct kernel_def {
  std::string op;
  std::string device_type;
  std::vector<std::pair<std::string, dtype>> constraints;  // type attr == dtype
  // Input and output args the kernel reads or writes in host memory although its device has
  // memory of its own (TF's HostMemory): shapes, axes and other small values it reads on the
  // host. Meaningless on a device that computes in host memory.
  std::vector<std::string> host_memory;
  // The kernel passes string tensors through as handles (Identity, _Send): it may serve a node
  // whose type attrs say string although no constraint names string. Without it, a string-typed
  // node matches only a kernel constrained to string, so no kernel written for fixed-size
  // elements (one that copies num_elements x dtype_size bytes) ever sees a string tensor.
  // Strings live in host memory: only a CPU lookup takes this path.
  bool passes_strings = false;
  kernel_factory factory;
};

// Registered for every device type: kernels that only move tensor handles or metadata
// (Identity, NoOp, _Send, _Recv). A type's own kernel for an op is preferred.
inline constexpr const char* any_device = "*";

// Where a node's kernel on one device type reads each input and writes each output.
struct memory_types {
  std::vector<bool> input_on_host, output_on_host;
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
  kernel_def_builder& host_memory(std::string arg) {
    def_.host_memory.push_back(std::move(arg));
    return *this;
  }
  kernel_def_builder& passes_strings() {
    def_.passes_strings = true;
    return *this;
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
  // The matching kernel def (the type's own, else one for any_device), or nullptr.
  const kernel_def* find(const node_def& node, std::string_view device_type) const;
  // Which inputs and outputs of `node` its kernel for `device_type` keeps in host memory
  // (kernel_def::host_memory, expanded over list args). All false when there is no kernel or
  // the op is unknown.
  memory_types memory_types_of(const node_def& node, std::string_view device_type) const;
  // Registers, for `device_type`, the `from_type` kernels of `op` (every dtype), with extra
  // host-memory args: a device type that runs another type's kernels, such as the tests'
  // accelerator. Call it during static initialization, like add().
  void alias(std::string_view op, std::string_view from_type, std::string_view device_type,
             const std::vector<std::string>& host_memory = {});
  // Declares args of every kernel of (op, device_type), registered before or after, to be in
  // host memory: one table of a device type's memory types, as kernels/gpu/host_memory_args.cpp.
  void declare_host_memory(std::string_view op, std::string_view device_type,
                           std::vector<std::string> args);
  bool has_kernel(const node_def& node, std::string_view device_type) const {
    return find(node, device_type) != nullptr;
  }
  // Builds the kernel for a node; errors name the node, the device and any constructor error.
  // With `keep` (the owner of `node` and `sig`, e.g. the built graph) the kernel shares them;
  // without, it keeps a copy.
  status_or<std::unique_ptr<op_kernel>> create(const node_def& node, const node_signature& sig,
                                               device& dev,
                                               std::shared_ptr<const void> keep = {}) const;
  // Every registered kernel def, ordered by (op, device type): for listings such as caflow-ops.
  std::vector<const kernel_def*> all_kernels() const;
  // "float32, int32" etc: the dtypes registered for (op, device_type, attr), for messages.
  std::string registered_types(std::string_view op, std::string_view device_type) const;

 private:
  std::map<std::pair<std::string, std::string>, std::vector<kernel_def>, std::less<>> defs_;
  std::map<std::pair<std::string, std::string>, std::vector<std::string>, std::less<>> host_args_;
};

struct kernel_registrar {
  kernel_registrar(kernel_def def) { kernel_registry::global().add(std::move(def)); }  // NOLINT
};

struct host_memory_registrar {
  host_memory_registrar(const char* op, const char* device_type, std::vector<std::string> args) {
    kernel_registry::global().declare_host_memory(op, device_type, std::move(args));
  }
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

// CAFLOW_REGISTER_HOST_MEMORY("Reshape", device_gpu, "shape");
#define CAFLOW_REGISTER_HOST_MEMORY(op, device_type, ...)                                 \
  static const ::caflow::host_memory_registrar CAFLOW_CONCAT(caflow_host_memory_,         \
                                                             __COUNTER__)(op, device_type, \
                                                                          {__VA_ARGS__})

#define CAFLOW_REGISTER_TYPED_KERNELS(op, device_type, attr, kernel, ...)       \
  static const ::caflow::typed_kernel_registrar<kernel, __VA_ARGS__> CAFLOW_CONCAT( \
      caflow_typed_kernel_registrar_, __COUNTER__)(op, device_type, attr)
