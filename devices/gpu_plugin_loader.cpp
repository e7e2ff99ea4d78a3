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

// What the process has of the plugin, decided under its mutex. The reason there is no GPU is
// written once, by the first call that finds none, and never again: local_gpus() hands out a
// reference to it. A loaded plugin stays loaded (its kernels are registered for good).
class gpu_plugin {
 public:
  static gpu_plugin& instance() {
    static gpu_plugin p;
    return p;
  }

  // The plugin's entry points, opening it first where allowed; null: no GPU code (none()).
  const gpu_plugin_api* api(bool even_without_gpu) {
    // Copies to and from a GPU come this way: once loaded, no lock.
    if (const gpu_plugin_api* loaded = api_.load(std::memory_order_acquire)) return loaded;
    std::lock_guard<std::mutex> lock(mu_);
#ifndef CAFLOW_HAVE_CUDA
    (void)even_without_gpu;
    say_none(not_built);
    return nullptr;
#else
    if (!opened_ && !even_without_gpu) {
      if (!files_checked_) {
        files_present_ = ::access("/dev/nvidiactl", F_OK) == 0 || ::access("/dev/nvidia0", F_OK) == 0;
        files_checked_ = true;
      }
      if (!files_present_) {
        // Not opened: a tool may still ask for the kernels (load_gpu_support).
        say_none("no NVIDIA GPU device files (/dev/nvidiactl, /dev/nvidia0) on this host");
        return nullptr;
      }
    }
    if (!opened_) open();
    return api_.load(std::memory_order_relaxed);
#endif
  }

  // Why the plugin could not be opened, once it was tried ("" when it was, or was not tried).
  std::string open_error() {
    std::lock_guard<std::mutex> lock(mu_);
    return open_error_;
  }

  static constexpr const char* not_built = "caflow was built without CUDA (configure with -DCAFLOW_CUDA=ON)";

  const gpu_enumeration& none() const { return none_; }

 private:
  void say_none(const std::string& why) {
    if (none_.why_none.empty()) none_.why_none = why;
  }

  // Opens the plugin (once): dlopen, then its entry point.
  void open() {
    opened_ = true;
    const std::string path = beside_this_library(gpu_plugin_file);
    // Global: the kernels' code resolves libcaflow's symbols, and other plugins the plugin's.
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    using entry = const gpu_plugin_api* (*)();
    entry get = nullptr;
    if (handle == nullptr) {
      const char* why = ::dlerror();
      open_error_ = std::string("the GPU plugin did not load: ") + (why ? why : path);
    } else if ((get = reinterpret_cast<entry>(::dlsym(handle, gpu_plugin_symbol))) == nullptr) {
      open_error_ = path + " has no " + gpu_plugin_symbol + ": a plugin of another caflow";
    }
    if (get == nullptr) return say_none(open_error_);
    api_.store(get(), std::memory_order_release);
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
  bool opened_ = false;  // dlopen was tried
  bool files_checked_ = false, files_present_ = false;
  std::string open_error_;
  gpu_enumeration none_;
};

// A GPU entry point called where there is none: unimplemented in a build without CUDA, a
// failed precondition where CUDA was built but this host has no GPU (or the plugin did not load).
status no_gpu() {
#ifndef CAFLOW_HAVE_CUDA
  return errors::unimplemented("no GPU: ", gpu_plugin::not_built);
#else
  return errors::failed_precondition("no GPU: ", gpu_plugin::instance().none().why_none);
#endif
}

}  // namespace

status load_gpu_support() {
  auto& p = gpu_plugin::instance();
  if (p.api(true) != nullptr) return {};
#ifndef CAFLOW_HAVE_CUDA
  return errors::unimplemented("no GPU kernels: ", gpu_plugin::not_built);
#else
  return errors::failed_precondition(p.open_error());
#endif
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
