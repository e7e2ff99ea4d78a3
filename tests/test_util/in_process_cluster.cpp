#include "test_util/in_process_cluster.hpp"

#include <filesystem>
#include <string>
#include <thread>

#include "test_util/process.hpp"

namespace caflow::testing {

status_or<std::vector<std::unique_ptr<server>>> start_in_process_cluster(
    int ps, int workers, int64_t ps_memory_limit_bytes) {
  const int tasks = ps + workers;
  const auto ports = free_ports(tasks);
  auto job_list = [&](int first, int count) {
    std::string list;
    for (int i = first; i < first + count; ++i)
      list += (i > first ? "," : "") + std::string("127.0.0.1:") + std::to_string(ports[i]);
    return list;
  };
  CAFLOW_ASSIGN_OR_RETURN(cluster_spec spec,
                          cluster_spec::from_flag("ps=" + job_list(0, ps) + ";worker=" +
                                                  job_list(ps, workers)));
  // Each server waits for the others, so all start at once.
  std::vector<status_or<std::unique_ptr<server>>> started;
  for (int i = 0; i < tasks; ++i) started.emplace_back(errors::internal("not started"));
  std::vector<std::thread> starting;
  for (int i = 0; i < tasks; ++i)
    starting.emplace_back([&, i] {
      started[i] = server::start({.cluster = spec,
                                  .job = i < ps ? "ps" : "worker",
                                  .task = i < ps ? i : i - ps,
                                  .cpu = {.intra_op_threads = 1,
                                          .inter_op_threads = 1,
                                          .memory_limit_bytes = i < ps ? ps_memory_limit_bytes : 0},
                                  // Tests save checkpoints in their temporary directories.
                                  .file_roots = {std::filesystem::temp_directory_path().string()}});
    });
  for (auto& t : starting) t.join();
  std::vector<std::unique_ptr<server>> servers;
  for (auto& s : started) {
    if (!s.ok()) return s.get_status();
    servers.push_back(std::move(s).value());
  }
  return servers;
}

}  // namespace caflow::testing
