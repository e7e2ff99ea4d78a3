#include "devices/gpu/gpu_graph.hpp"

#include "devices/gpu/cuda_status.hpp"
#include "devices/gpu/gpu_capture_scope.hpp"
#include "devices/gpu/gpu_device.hpp"

namespace caflow {

namespace {

class gpu_graph final : public device_graph {
 public:
  // `copied` orders each launch after the copy stream's work (made once, not per launch).
  gpu_graph(gpu_device& g, cudaGraph_t graph, cudaGraphExec_t exec, cudaEvent_t copied,
            std::shared_ptr<allocator> pool, std::vector<tensor> staged)
      : g_(g), graph_(graph), exec_(exec), copied_(copied), pool_(std::move(pool)),
        staged_(std::move(staged)) {}
  ~gpu_graph() override {
    (void)g_.activate();
    // A launch still queued keeps running after this: wait for it before its pool goes.
    (void)cudaStreamSynchronize(g_.compute_stream());
    (void)cudaEventDestroy(copied_);
    (void)cudaGraphExecDestroy(exec_);
    (void)cudaGraphDestroy(graph_);
  }
  status launch() override {
    CAFLOW_RETURN_IF_ERROR(g_.activate());
    // A copy out of the last replay's buffers (to a peer GPU, on the copy stream) may still be
    // reading them: this replay writes them again only after it.
    CAFLOW_CUDA_RETURN_IF_ERROR(cudaEventRecord(copied_, g_.copy_stream()));
    CAFLOW_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(g_.compute_stream(), copied_, 0));
    return cuda_status(cudaGraphLaunch(exec_, g_.compute_stream()), "cudaGraphLaunch");
  }

 private:
  gpu_device& g_;
  cudaGraph_t graph_;
  cudaGraphExec_t exec_;
  cudaEvent_t copied_;
  std::shared_ptr<allocator> pool_;
  std::vector<tensor> staged_;
};

class gpu_capture final : public device_capture {
 public:
  explicit gpu_capture(gpu_device& g) : g_(g) {}
  ~gpu_capture() override {
    if (open_) (void)close();
    if (scope_.stream) (void)cudaStreamDestroy(scope_.stream);
  }

  status open(std::shared_ptr<allocator> pool) {
    CAFLOW_RETURN_IF_ERROR(g_.activate());
    CAFLOW_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&scope_.stream, cudaStreamNonBlocking));
    CAFLOW_CUDA_RETURN_IF_ERROR(cudaStreamBeginCapture(scope_.stream, cudaStreamCaptureModeRelaxed));
    scope_.dev = &g_;
    scope_.pool = std::move(pool);
    gpu_capture_scope::enter(&scope_);
    open_ = true;
    return {};
  }

  status record(std::function<status()> fn) override {
    if (!open_) return errors::failed_precondition("the recording on ", g_.name(), " is closed");
    if (gpu_capture_scope::current() != &scope_)
      return errors::internal("a recording on ", g_.name(), " was used from another thread");
    return fn();
  }

  status_or<std::unique_ptr<device_graph>> finish() override {
    if (!open_) return errors::failed_precondition("the recording on ", g_.name(), " is closed");
    cudaGraph_t graph = nullptr;
    CAFLOW_RETURN_IF_ERROR(close(&graph));
    cudaGraphExec_t exec = nullptr;
    cudaEvent_t copied = nullptr;
    cudaError_t e = cudaGraphInstantiate(&exec, graph, 0);
    const char* what = "cudaGraphInstantiate";
    if (e == cudaSuccess) {
      e = cudaEventCreateWithFlags(&copied, cudaEventDisableTiming);
      what = "cudaEventCreateWithFlags";
    }
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      if (exec) (void)cudaGraphExecDestroy(exec);
      (void)cudaGraphDestroy(graph);
      return cuda_status(e, what);
    }
    return std::unique_ptr<device_graph>(new gpu_graph(g_, graph, exec, copied, scope_.pool, std::move(scope_.staged)));
  }

 private:
  // Ends the stream capture; the graph goes to `out`, or is dropped when `out` is null.
  status close(cudaGraph_t* out = nullptr) {
    open_ = false;
    gpu_capture_scope::leave(&scope_);
    cudaGraph_t graph = nullptr;
    const cudaError_t e = cudaStreamEndCapture(scope_.stream, &graph);
    if (e != cudaSuccess || graph == nullptr) {
      (void)cudaGetLastError();  // an invalidated capture's error is not sticky
      if (graph) (void)cudaGraphDestroy(graph);
      return e != cudaSuccess ? cuda_status(e, "cudaStreamEndCapture")
                              : errors::internal("cudaStreamEndCapture gave no graph");
    }
    if (out) *out = graph;
    else (void)cudaGraphDestroy(graph);
    return {};
  }

  gpu_device& g_;
  gpu_capture_scope scope_;
  bool open_ = false;
};

}  // namespace

status_or<std::unique_ptr<device_capture>> begin_gpu_capture(gpu_device& g,
                                                             std::shared_ptr<allocator> pool) {
  auto c = std::make_unique<gpu_capture>(g);
  CAFLOW_RETURN_IF_ERROR(c->open(std::move(pool)));
  return std::unique_ptr<device_capture>(std::move(c));
}

}  // namespace caflow
