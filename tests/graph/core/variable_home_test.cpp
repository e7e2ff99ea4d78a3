// Where a device keeps its variables (graph/core/variable_home.hpp, kernels/framework/in_place.hpp): an
// update moves a variable to its home once, then writes it in place, and writes a fresh buffer
// while another process may read the old one (allocator::writable_in_place), so what that
// reader views never changes under it. A fake home stands in for a worker's shared memory
// segment (net/shm/shm_sender.hpp; tests/net/shm/shm_link_test.cpp has the real one).
#include <doctest/doctest.h>

#include <atomic>
#include <memory>
#include <set>
#include <vector>

#include "devices/cpu_device.hpp"
#include "graph/ir/node_signature.hpp"
#include "graph/ir/op_def.hpp"
#include "kernels/framework/in_place.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "kernels/resources/variable.hpp"

using namespace caflow;

namespace {

// Heap memory whose blocks the test marks as read elsewhere, as a receiver's lease would. Freed
// blocks stay readable until the allocator goes, as a block a receiver views stays mapped.
class marked_allocator final : public allocator {
 public:
  ~marked_allocator() override {
    for (auto [p, bytes] : freed) default_allocator()->deallocate(p, bytes);
  }
  const char* name() const override { return "marked"; }
  void* allocate(size_t bytes) override {
    ++allocations;
    return default_allocator()->allocate(bytes);
  }
  void deallocate(void* p, size_t bytes) override { freed.emplace_back(p, bytes); }
  bool writable_in_place(const void* p) const override { return read_elsewhere.count(p) == 0; }

  std::set<const void*> read_elsewhere;
  std::vector<std::pair<void*, size_t>> freed;
  int allocations = 0;
};

class fake_home final : public variable_home {
 public:
  std::shared_ptr<allocator> variables() const override {
    return linked ? memory : nullptr;
  }
  std::shared_ptr<marked_allocator> memory = std::make_shared<marked_allocator>();
  bool linked = false;
};

struct home_fixture {
  cpu_device dev{"/job:ps/replica:0/task:0/device:CPU:0",
                 cpu_device_options{.intra_op_threads = 1, .inter_op_threads = 1}};
  std::shared_ptr<fake_home> home = std::make_shared<fake_home>();
  std::shared_ptr<variable> var =
      std::make_shared<variable>("w", dtype::float32, partial_shape(tensor_shape{4}));

  home_fixture() { dev.set_variable_home(home); }

  // Runs `op` (a one-variable update, T=float) on `dev` with the variable and `args`.
  void run(const std::string& op, const std::vector<tensor>& args) {
    auto def = op_registry::global().find(op);
    REQUIRE(def.ok());
    node_def n;
    n.name = "update";
    n.op = op;
    n.attrs["T"] = dtype::float32;
    add_default_attrs(**def, n);
    auto sig = resolve_signature(**def, n);
    REQUIRE_MESSAGE(sig.ok(), sig.get_status().to_string());
    auto kernel = kernel_registry::global().create(n, *sig, dev);
    REQUIRE_MESSAGE(kernel.ok(), kernel.get_status().to_string());
    std::vector<kernel_value> in(1 + args.size()), out(sig->output_types.size());
    in[0].ref = var;
    for (size_t i = 0; i < args.size(); ++i) in[i + 1].value = args[i];
    cancellation_manager cancel;
    call_frame frame;
    step_context step{1, &frame, &cancel, nullptr};
    kernel_context ctx(**kernel, dev, step, in.data(), out.data());
    (*kernel)->compute(ctx);
    REQUIRE_MESSAGE(ctx.ok(), ctx.get_status().to_string());
  }
  void descend(float delta) {
    run("ApplyGradientDescent",
        {tensor::scalar<float>(1.0f), tensor::from_vector<float>({delta, delta, delta, delta})});
  }
  const void* bytes() const { return var->snapshot().raw_data(); }
  const char* owner() const { return var->snapshot().buf()->owner().name(); }
};

}  // namespace

TEST_CASE("without a home, or before it has memory, updates stay in place on the device") {
  home_fixture f;
  f.var->assign(tensor::from_vector<float>({1, 2, 3, 4}));
  const void* before = f.bytes();
  f.descend(1);
  CHECK(f.bytes() == before);
  CHECK(f.dev.variable_allocator() == f.dev.get_allocator());
  CHECK(f.var->snapshot().to_vector<float>() == std::vector<float>{0, 1, 2, 3});
}

TEST_CASE("an update moves a variable home once, then writes it in place") {
  home_fixture f;
  f.var->assign(tensor::from_vector<float>({1, 2, 3, 4}));
  f.home->linked = true;
  CHECK(f.dev.variable_allocator() == f.home->memory);
  f.descend(1);  // computed into a fresh buffer at home: no copy first
  CHECK(std::string(f.owner()) == "marked");
  CHECK(f.home->memory->allocations == 1);
  const void* home_bytes = f.bytes();
  f.descend(1);
  f.run("AssignAdd", {tensor::from_vector<float>({10, 10, 10, 10})});
  CHECK(f.bytes() == home_bytes);
  CHECK(f.home->memory->allocations == 1);
  CHECK(f.var->snapshot().to_vector<float>() == std::vector<float>{9, 10, 11, 12});
}

TEST_CASE("bytes another process reads are never written: the update writes fresh ones") {
  home_fixture f;
  f.home->linked = true;
  f.var->assign(tensor::from_vector<float>({1, 2, 3, 4}));
  f.descend(0);
  // The ps hands the variable's block to a worker, which views it; the ps's own reference to
  // the block (its _Send's) is gone, so only the lease says someone reads it.
  tensor viewed = f.var->snapshot();
  const void* old_bytes = viewed.raw_data();
  f.home->memory->read_elsewhere.insert(old_bytes);
  viewed = tensor{};
  CHECK_FALSE(mutable_in_place(f.var->snapshot()));

  f.descend(1);
  const void* new_bytes = f.bytes();
  CHECK(new_bytes != old_bytes);
  CHECK(f.home->memory->allocations == 2);
  CHECK(f.var->snapshot().to_vector<float>() == std::vector<float>{0, 1, 2, 3});

  // AssignSub (read, then write): the same, copying first.
  f.home->memory->read_elsewhere.insert(new_bytes);
  f.run("AssignSub", {tensor::from_vector<float>({1, 1, 1, 1})});
  CHECK(f.bytes() != new_bytes);
  CHECK(std::string(f.owner()) == "marked");
  CHECK(f.var->snapshot().to_vector<float>() == std::vector<float>{-1, 0, 1, 2});

  // The readers let go: in place again.
  f.home->memory->read_elsewhere.clear();
  const void* last = f.bytes();
  f.descend(1);
  CHECK(f.bytes() == last);
}

TEST_CASE("a variable assigned bytes it may not write copies them before its first update") {
  auto foreign = std::make_shared<marked_allocator>();  // outlives the variable's old bytes
  home_fixture f;  // no home memory: the device's own
  auto value = tensor::allocate(foreign, dtype::float32, tensor_shape{4});
  REQUIRE(value.ok());
  for (int i = 0; i < 4; ++i) value->data<float>()[i] = static_cast<float>(i);
  foreign->read_elsewhere.insert(value->raw_data());  // a view of another process's block
  f.var->assign(*value);
  const float* theirs = value->data<float>();
  *value = tensor{};
  f.run("AssignAdd", {tensor::from_vector<float>({1, 1, 1, 1})});
  CHECK(f.bytes() != theirs);
  CHECK(std::vector<float>(theirs, theirs + 4) == std::vector<float>{0, 1, 2, 3});
  CHECK(f.var->snapshot().to_vector<float>() == std::vector<float>{1, 2, 3, 4});
}
