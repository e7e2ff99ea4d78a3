// The GPU entry points as libcaflow has them: each opens the GPU plugin (devices/gpu_plugin.hpp)
// when it may, and forwards to it; without the plugin (a build without CUDA, a host without
// NVIDIA device files, a plugin that does not load) there are no GPUs, and why says so.
#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>

#include "devices/gpu_plugin.hpp"

namespace caflow {
namespace {

// What the process has of the plugin. Filled under its mutex and never emptied: a loaded plugin
// stays loaded (its kernels are registered for good).
class gpu_plugin {
 public:
  static gpu_plugin& instance() {
    static gpu_plugin p;
    return p;
  }

  // The plugin's entry points, opening it first where allowed; null: no GPU code (why()).
  const gpu_plugin_api* api(bool even_without_gpu) {
    // Copies to and from a GPU come this way: once loaded, no lock.
    if (const gpu_plugin_api* loaded = api_.load(std::memory_order_acquire)) return loaded;
    std::lock_guard<std::mutex> lock(mu_);
    if (tried_) return api_.load(std::memory_order_relaxed);
#ifndef CAFLOW_HAVE_CUDA
    (void)even_without_gpu;
    none_.why_none = "caflow was built without CUDA (configure with -DCAFLOW_CUDA=ON)";
    tried_ = true;
    return nullptr;
#else
    if (!even_without_gpu && !has_gpu_device_files()) {
      // Not marked as tried: a tool may still ask for the kernels (load_gpu_support).
      none_.why_none = "no NVIDIA GPU device files (/dev/nvidiactl, /dev/nvidia0) on this host";
      return nullptr;
    }
    tried_ = true;
    const std::string path = beside_this_library(gpu_plugin_file);
    // Global: the kernels' code resolves libcaflow's symbols, and other plugins the plugin's.
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (handle == nullptr) {
      const char* why = ::dlerror();
      none_.why_none = std::string("the GPU plugin did not load: ") + (why ? why : path);
      return nullptr;
    }
    using entry = const gpu_plugin_api* (*)();
    auto get = reinterpret_cast<entry>(::dlsym(handle, gpu_plugin_symbol));
    if (get == nullptr) {
      none_.why_none = path + " has no " + gpu_plugin_symbol + ": a plugin of another caflow";
      return nullptr;
    }
    const gpu_plugin_api* loaded = get();
    api_.store(loaded, std::memory_order_release);
    return loaded;
#endif
  }

  const gpu_enumeration& none() const { return none_; }

 private:
  static bool has_gpu_device_files() {
    return ::access("/dev/nvidiactl", F_OK) == 0 || ::access("/dev/nvidia0", F_OK) == 0;
  }

  // The plugin sits in the directory libcaflow was loaded from (build tree or install prefix).
  static std::string beside_this_library(const char* file) {
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&load_gpu_support), &info) == 0 || info.dli_fname == nullptr)
      return file;
    std::string dir = info.dli_fname;
    const size_t slash = dir.rfind('/');
    return slash == std::string::npos ? std::string(file) : dir.substr(0, slash + 1) + file;
  }

  std::mutex mu_;
  std::atomic<const gpu_plugin_api*> api_{nullptr};
  bool tried_ = false;
  gpu_enumeration none_;
};

status no_gpu() {
  return errors::unimplemented("no GPU: ", gpu_plugin::instance().none().why_none);
}

}  // namespace

status load_gpu_support() {
  if (gpu_plugin::instance().api(true) == nullptr) return no_gpu();
  return {};
}

const gpu_enumeration& local_gpus() {
  auto& p = gpu_plugin::instance();
  if (const gpu_plugin_api* api = p.api(false)) return api->local_gpus();
  return p.none();
}

status_or<std::vector<std::unique_ptr<device>>> make_local_gpu_devices(const gpu_options& opts,
                                                                       std::string_view job,
                                                                       int task) {
  if (const gpu_plugin_api* api = gpu_plugin::instance().api(false))
    return api->make_local_gpu_devices(opts, job, task);
  if (!(opts.per_process_gpu_memory_fraction >= 0 && opts.per_process_gpu_memory_fraction <= 1))
    return errors::invalid_argument("per_process_gpu_memory_fraction must be in [0, 1], got ",
                                    opts.per_process_gpu_memory_fraction);
  CAFLOW_RETURN_IF_ERROR(parse_visible_device_list(opts.visible_device_list, 0).get_status());
  static std::once_flag said;
  std::call_once(said, [] {
    std::fprintf(stderr, "caflow: no GPU (%s): running on CPU\n",
                 gpu_plugin::instance().none().why_none.c_str());
  });
  return std::vector<std::unique_ptr<device>>{};
}

status_or<tensor> copy_to_gpu(device& gpu, const tensor& host) {
  if (const gpu_plugin_api* api = gpu_plugin::instance().api(false)) return api->copy_to_gpu(gpu, host);
  return no_gpu();
}

status_or<tensor> copy_to_host(device& gpu, const tensor& on_gpu) {
  if (const gpu_plugin_api* api = gpu_plugin::instance().api(false)) return api->copy_to_host(gpu, on_gpu);
  return no_gpu();
}

status_or<tensor> copy_gpu_to_gpu(device& dst, device& src, const tensor& on_src) {
  if (const gpu_plugin_api* api = gpu_plugin::instance().api(false))
    return api->copy_gpu_to_gpu(dst, src, on_src);
  return no_gpu();
}

}  // namespace caflow
