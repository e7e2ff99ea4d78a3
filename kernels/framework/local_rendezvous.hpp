#pragma once
// The rendezvous of partitions that share a process: a table per step of keys whose value
// waits for its Recv, or whose Recv waits for its value. Values are handed over by tensor
// handle, so the received tensor shares the sent bytes. One mutex guards the tables; it is
// held only to look up and update an entry, never while a callback runs or a buffer is freed.
//
// A step's table lives until cleanup_step (the worker calls it once every partition of the
// step has finished), so a duplicate Send or Recv is caught even after its pair was matched.
#include <mutex>
#include <string>
#include <unordered_map>

#include "kernels/framework/rendezvous.hpp"

namespace caflow {

class local_rendezvous final : public rendezvous {
 public:
  local_rendezvous() = default;
  // Wakes any recv still pending with a cancelled error.
  ~local_rendezvous() override;
  local_rendezvous(const local_rendezvous&) = delete;
  local_rendezvous& operator=(const local_rendezvous&) = delete;

  status send(const std::string& key, int64_t step_id, const tensor& value) override;
  void recv_async(const std::string& key, int64_t step_id, recv_callback done) override;
  void abort_step(int64_t step_id, const status& error) override;
  void cleanup_step(int64_t step_id) override;

  // Steps that still hold state (values, pending recvs, matched keys or an abort).
  size_t num_live_steps() const;

 private:
  struct item {
    enum class state : uint8_t { value_waiting, recv_waiting, matched };
    state st = state::matched;
    tensor value;
    recv_callback recv;
  };
  struct step_table {
    status aborted;  // non-OK once the step is aborted
    std::unordered_map<std::string, item> items;
  };

  mutable std::mutex mu_;
  std::unordered_map<int64_t, step_table> steps_;
};

}  // namespace caflow
