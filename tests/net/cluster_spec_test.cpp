#include "net/cluster_spec.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;

namespace {

const char* const two_jobs =
    R"({"ps": ["127.0.0.1:2222"], "worker": ["127.0.0.1:2223", "127.0.0.1:2224"]})";

cluster_spec json_ok(std::string_view text) {
  auto r = cluster_spec::from_json(text);
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return *r;
}

void check_two_jobs(const cluster_spec& c) {
  CHECK(c.jobs() == std::vector<std::string>{"ps", "worker"});
  CHECK(c.num_tasks("ps") == 1);
  CHECK(c.num_tasks("worker") == 2);
  CHECK(c.num_tasks("chief") == 0);
  CHECK(c.has_job("ps"));
  CHECK_FALSE(c.has_job("chief"));
  auto a = c.task_address("worker", 1);
  REQUIRE(a.ok());
  CHECK(*a == "127.0.0.1:2224");
}

// Sets an environment variable for one scope and restores what was there before.
class scoped_env {
 public:
  scoped_env(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~scoped_env() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace

TEST_CASE("split_host_port accepts names, IPv4 and bracketed IPv6") {
  auto hp = split_host_port("127.0.0.1:2222");
  REQUIRE(hp.ok());
  CHECK(hp->host == "127.0.0.1");
  CHECK(hp->port == 2222);

  hp = split_host_port("worker-0.example_net.local:65535");
  REQUIRE(hp.ok());
  CHECK(hp->host == "worker-0.example_net.local");
  CHECK(hp->port == 65535);

  hp = split_host_port("[::1]:1");
  REQUIRE(hp.ok());
  CHECK(hp->host == "::1");
  CHECK(hp->port == 1);
}

TEST_CASE("split_host_port rejects malformed addresses, quoting them") {
  check_error(split_host_port("127.0.0.1"), "address '127.0.0.1' has no port (expected host:port)");
  check_error(split_host_port("host:"), "address 'host:' has no port");
  check_error(split_host_port("host:http"),
              "address 'host:http' has a port that is not a number: 'http'");
  check_error(split_host_port("host:-1"), "not a number: '-1'");
  check_error(split_host_port("host:0"), "address 'host:0' has port 0, outside 1..65535");
  check_error(split_host_port("host:65536"), "has port 65536, outside 1..65535");
  check_error(split_host_port("host:123456789012345678901234"), "outside 1..65535");
  check_error(split_host_port(":2222"), "address ':2222' has an empty host");
  check_error(split_host_port(""), "empty address (expected host:port)");
  check_error(split_host_port("::1:2222"), "has more than one ':' (write an IPv6 host in brackets");
  check_error(split_host_port("[::1:2222"), "has an unterminated '['");
  check_error(split_host_port("[::1]2222"), "has '2222' after the host");
  check_error(split_host_port("[::1]"), "address '[::1]' has no port");
  check_error(split_host_port("[]:2222"), "has an empty host");
  check_error(split_host_port("[zz]:2222"), "has an invalid IPv6 host 'zz'");
  check_error(split_host_port("bad host:2222"), "has an invalid host 'bad host'");
}

TEST_CASE("cluster_spec::from_json reads jobs and tasks in order") {
  cluster_spec c = json_ok(two_jobs);
  check_two_jobs(c);
  auto tasks = c.tasks();
  REQUIRE(tasks.size() == 3);
  CHECK(tasks[0] == cluster_spec::task_entry{"ps", 0, "127.0.0.1:2222"});
  CHECK(tasks[1] == cluster_spec::task_entry{"worker", 0, "127.0.0.1:2223"});
  CHECK(tasks[2] == cluster_spec::task_entry{"worker", 1, "127.0.0.1:2224"});
}

TEST_CASE("cluster_spec: jobs() is sorted whatever the input order") {
  cluster_spec c = json_ok(R"({"worker": ["b:1"], "chief": ["a:1"], "ps": ["c:1"]})");
  CHECK(c.jobs() == std::vector<std::string>{"chief", "ps", "worker"});
}

TEST_CASE("cluster_spec: to_json and to_flag round trip") {
  cluster_spec c = json_ok(two_jobs);
  CHECK(c.to_json() == R"({"ps":["127.0.0.1:2222"],"worker":["127.0.0.1:2223","127.0.0.1:2224"]})");
  auto back = cluster_spec::from_json(c.to_json());
  REQUIRE(back.ok());
  CHECK(*back == c);

  CHECK(c.to_flag() == "ps=127.0.0.1:2222;worker=127.0.0.1:2223,127.0.0.1:2224");
  auto from_flag = cluster_spec::from_flag(c.to_flag());
  REQUIRE(from_flag.ok());
  CHECK(*from_flag == c);
  CHECK_FALSE(c == json_ok(R"({"ps": ["127.0.0.1:2222"], "worker": ["127.0.0.1:2223"]})"));
}

TEST_CASE("cluster_spec::from_flag takes JSON or the compact form") {
  auto compact = cluster_spec::from_flag("ps=127.0.0.1:2222;worker=127.0.0.1:2223,127.0.0.1:2224");
  REQUIRE(compact.ok());
  check_two_jobs(*compact);

  auto spaced =
      cluster_spec::from_flag("  ps = 127.0.0.1:2222 ; worker = 127.0.0.1:2223 , 127.0.0.1:2224  ");
  REQUIRE(spaced.ok());
  CHECK(*spaced == *compact);

  auto json = cluster_spec::from_flag(std::string("  ") + two_jobs);
  REQUIRE(json.ok());
  CHECK(*json == *compact);

  auto single = cluster_spec::from_flag("localhost=localhost:2222");
  REQUIRE(single.ok());
  CHECK(single->tasks() ==
        std::vector<cluster_spec::task_entry>{{"localhost", 0, "localhost:2222"}});
}

TEST_CASE("cluster_spec::from_flag rejections") {
  check_error(cluster_spec::from_flag(""), "invalid cluster spec: the flag is empty");
  check_error(cluster_spec::from_flag("   "), "the flag is empty");
  check_error(cluster_spec::from_flag("ps"),
              "invalid cluster spec: entry 'ps' is not job=host:port[,host:port...]");
  check_error(cluster_spec::from_flag("ps=a:1;;worker=b:1"), "empty entry");
  check_error(cluster_spec::from_flag("ps=a:1;"), "empty entry");
  check_error(cluster_spec::from_flag("ps=a:1;ps=b:1"), "job 'ps' appears twice");
  check_error(cluster_spec::from_flag("ps="), "job 'ps' has no tasks");
  check_error(cluster_spec::from_flag("=a:1"), "empty job name");
  check_error(cluster_spec::from_flag("ps=a:1,"), "/job:ps/task:1: empty address");
  check_error(cluster_spec::from_flag("ps=a:1,,b:2"), "/job:ps/task:1: empty address");
  check_error(cluster_spec::from_flag("ps=a:1;worker=b"),
              "invalid cluster spec: /job:worker/task:0: address 'b' has no port");
  check_error(cluster_spec::from_flag("{\"ps\": 1}"), "job 'ps': expected an array");
}

TEST_CASE("cluster_spec::from_json: wrong JSON and wrong JSON types name the key") {
  check_error(cluster_spec::from_json("{\"ps\": [\"a:1\""),
              "invalid cluster spec: not valid JSON: parse error at line 1");
  check_error(cluster_spec::from_json(""), "not valid JSON");
  check_error(cluster_spec::from_json("[\"a:1\"]"),
              "invalid cluster spec: expected a JSON object mapping job names to arrays of "
              "\"host:port\", got array");
  check_error(cluster_spec::from_json(R"({"ps": "a:1"})"),
              "job 'ps': expected an array of \"host:port\", got string");
  check_error(cluster_spec::from_json(R"({"ps": {"0": "a:1"}})"),
              "job 'ps': expected an array of \"host:port\", got object");
  check_error(cluster_spec::from_json(R"({"ps": ["a:1", 2222]})"),
              "job 'ps' task 1: expected a \"host:port\" string, got number");
  check_error(cluster_spec::from_json(R"({"ps": [null]})"), "got null");
  check_error(cluster_spec::from_json(R"({"ps": ["a:1"], "ps": ["b:1"]})"),
              "invalid cluster spec: key 'ps' appears twice");
}

TEST_CASE("cluster_spec::from_json: invalid jobs and addresses name the culprit") {
  check_error(cluster_spec::from_json("{}"), "invalid cluster spec: the cluster has no jobs");
  check_error(cluster_spec::from_json(R"({"ps": []})"), "job 'ps' has no tasks");
  check_error(cluster_spec::from_json(R"({"": ["a:1"]})"), "empty job name");
  check_error(cluster_spec::from_json(R"({"Worker": ["a:1"]})"),
              "invalid job name 'Worker' (expected [a-z][a-z0-9_]*)");
  check_error(cluster_spec::from_json(R"({"2ps": ["a:1"]})"), "invalid job name '2ps'");
  check_error(cluster_spec::from_json(R"({"ps-1": ["a:1"]})"), "invalid job name 'ps-1'");
  check_error(cluster_spec::from_json(R"({"ps": ["a:1"], "worker": ["b:1", "c"]})"),
              "/job:worker/task:1: address 'c' has no port");
  check_error(cluster_spec::from_json(R"({"ps": ["a:x"]})"),
              "/job:ps/task:0: address 'a:x' has a "
              "port that is not a number");
  check_error(cluster_spec::from_json(R"({"ps": ["a:0"]})"), "has port 0, outside 1..65535");
  check_error(cluster_spec::from_json(R"({"ps": ["a:70000"]})"), "has port 70000");
  check_error(cluster_spec::from_json(R"({"ps": [":1"]})"), "address ':1' has an empty host");
}

TEST_CASE("cluster_spec: an address used twice names both tasks") {
  check_error(cluster_spec::from_json(R"({"ps": ["h:1"], "worker": ["h:2", "h:1"]})"),
              "address 'h:1' is used by both /job:ps/task:0 and /job:worker/task:1");
  check_error(cluster_spec::from_json(R"({"worker": ["h:1", "h:1"]})"),
              "used by both /job:worker/task:0 and /job:worker/task:1");
  // Host names are case-insensitive; the port is compared as a number.
  check_error(cluster_spec::from_json(R"({"worker": ["Host:1", "host:01"]})"),
              "address 'host:01' is used by both /job:worker/task:0 and /job:worker/task:1");
  // Same host, different ports: fine.
  CHECK(cluster_spec::from_json(R"({"worker": ["h:1", "h:2"]})").ok());
}

TEST_CASE("cluster_spec::task_address: unknown job or task is NOT_FOUND naming it") {
  cluster_spec c = json_ok(two_jobs);
  auto r = c.task_address("chief", 0);
  check_error(r, "job 'chief' is not in the cluster (jobs: ps, worker)");
  CHECK(r.get_status().code() == error_code::not_found);
  check_error(c.task_address("worker", 2),
              "task 2 of job 'worker' does not exist: the job has 2 task(s)");
  check_error(c.task_address("ps", -1), "task -1 of job 'ps' does not exist");
  check_error(cluster_spec().task_address("ps", 0), "job 'ps' is not in the cluster (jobs: )");
}

TEST_CASE("cluster_spec::validate_device checks job, task and replica") {
  cluster_spec c = json_ok(two_jobs);
  auto spec = [](std::string_view text) {
    auto d = parse_device_spec(text);
    REQUIRE(d.ok());
    return *d;
  };
  CHECK(c.validate_device(spec("")).ok());
  CHECK(c.validate_device(spec("/job:ps")).ok());
  CHECK(c.validate_device(spec("/job:ps/task:0/device:CPU:0")).ok());
  CHECK(c.validate_device(spec("/job:worker/replica:0/task:1/device:GPU:3")).ok());
  CHECK(c.validate_device(spec("/task:1")).ok());
  CHECK(c.validate_device(spec("/device:GPU:*")).ok());

  check_error(c.validate_device(spec("/job:ps/task:3")),
              "device '/job:ps/task:3': job 'ps' has 1 task(s)");
  check_error(c.validate_device(spec("/job:worker/task:2/cpu:0")),
              "device '/job:worker/task:2/device:CPU:0': job 'worker' has 2 task(s)");
  check_error(c.validate_device(spec("/job:chief")),
              "device '/job:chief': job 'chief' is not in the cluster (jobs: ps, worker)");
  check_error(c.validate_device(spec("/task:2")),
              "device '/task:2': no job of the cluster has task 2 (the largest job has 2 task(s))");
  check_error(c.validate_device(spec("/job:ps/replica:1")),
              "device '/job:ps/replica:1': replica 1 does not exist");
  check_error(c.validate_device(device_spec{.task = -1}), "device '/task:-1': task -1 is negative");
}

TEST_CASE("cluster_spec::from_file") {
  namespace fs = std::filesystem;
  fs::path path = fs::temp_directory_path() /
                  ("caflow_cluster_spec_test_" + std::to_string(getpid()) + ".json");
  {
    std::ofstream out(path);
    out << two_jobs << "\n";
  }
  auto c = cluster_spec::from_file(path.string());
  REQUIRE_MESSAGE(c.ok(), c.get_status().to_string());
  check_two_jobs(*c);

  {
    std::ofstream out(path);
    out << R"({"ps": ["127.0.0.1"]})";
  }
  check_error(cluster_spec::from_file(path.string()),
              "file '" + path.string() +
                  "': invalid cluster spec: /job:ps/task:0: address "
                  "'127.0.0.1' has no port");
  fs::remove(path);

  auto missing = cluster_spec::from_file(path.string());
  check_error(missing, "cannot open cluster spec file '" + path.string() + "': No such file");
  CHECK(missing.get_status().code() == error_code::not_found);
}

TEST_CASE("task_config::from_tf_config") {
  auto cfg = task_config::from_tf_config(std::string(R"({"cluster": )") + two_jobs +
                                         R"(, "task": {"type": "worker", "index": 1},
                                            "environment": "cloud", "rpc_layer": "grpc"})");
  REQUIRE_MESSAGE(cfg.ok(), cfg.get_status().to_string());
  check_two_jobs(cfg->cluster);
  CHECK(cfg->job == "worker");
  CHECK(cfg->task == 1);
  CHECK(cfg->task_name() == "/job:worker/replica:0/task:1");

  // "index" defaults to 0, as in TensorFlow.
  cfg =
      task_config::from_tf_config(R"({"cluster": {"chief": ["c:1"]}, "task": {"type": "chief"}})");
  REQUIRE(cfg.ok());
  CHECK(cfg->job == "chief");
  CHECK(cfg->task == 0);
}

TEST_CASE("task_config::from_tf_config rejections") {
  auto tf = [](const std::string& task) {
    return task_config::from_tf_config(std::string(R"({"cluster": )") + two_jobs + R"(, "task": )" +
                                       task + "}");
  };
  check_error(
      tf(R"({"type": "chief", "index": 0})"),
      "invalid TF_CONFIG: task type 'chief' is not a job of the cluster (jobs: ps, worker)");
  check_error(tf(R"({"type": "worker", "index": 2})"),
              "invalid TF_CONFIG: task index 2 is out of range: job 'worker' has 2 task(s)");
  check_error(tf(R"({"type": "ps", "index": -1})"), "task index -1 is out of range");
  check_error(tf(R"({"type": "ps", "index": 18446744073709551615})"),
              "task index 18446744073709551615 is out of range");
  check_error(tf(R"({"type": "ps", "index": "0"})"),
              "\"task\".\"index\" must be an integer, got string");
  check_error(tf(R"({"type": "ps", "index": 0.5})"), "must be an integer, got number");
  check_error(tf(R"({"type": 1})"), "\"task\".\"type\" must be a string, got number");
  check_error(tf(R"({"index": 0})"), "invalid TF_CONFIG: \"task\" has no \"type\"");
  check_error(tf(R"("worker")"), "\"task\" must be an object, got string");

  check_error(task_config::from_tf_config(R"({"task": {"type": "ps"}})"),
              "invalid TF_CONFIG: no \"cluster\" key");
  check_error(task_config::from_tf_config(R"({"cluster": {"ps": ["a:1"]}})"),
              "invalid TF_CONFIG: no \"task\" key");
  check_error(task_config::from_tf_config(R"({"cluster": {"ps": []}, "task": {"type": "ps"}})"),
              "invalid TF_CONFIG: \"cluster\": job 'ps' has no tasks");
  check_error(task_config::from_tf_config(R"({"cluster": ["a:1"], "task": {"type": "ps"}})"),
              "invalid TF_CONFIG: \"cluster\": expected a JSON object");
  check_error(task_config::from_tf_config("[]"),
              "invalid TF_CONFIG: expected a JSON object, got array");
  check_error(task_config::from_tf_config("{cluster}"), "invalid TF_CONFIG: not valid JSON");
}

TEST_CASE("task_config::from_tf_config_env reads TF_CONFIG") {
  {
    scoped_env env("TF_CONFIG", nullptr);
    auto r = task_config::from_tf_config_env();
    check_error(r, "the TF_CONFIG environment variable is not set");
    CHECK(r.get_status().code() == error_code::not_found);
  }
  {
    scoped_env env("TF_CONFIG", "");
    CHECK(task_config::from_tf_config_env().get_status().code() == error_code::not_found);
  }
  {
    std::string value =
        std::string(R"({"cluster": )") + two_jobs + R"(, "task": {"type": "ps", "index": 0}})";
    scoped_env env("TF_CONFIG", value.c_str());
    auto cfg = task_config::from_tf_config_env();
    REQUIRE_MESSAGE(cfg.ok(), cfg.get_status().to_string());
    CHECK(cfg->job == "ps");
    CHECK(cfg->task == 0);
    CHECK(cfg->cluster.num_tasks("worker") == 2);
    auto address = cfg->cluster.task_address(cfg->job, cfg->task);
    REQUIRE(address.ok());
    CHECK(*address == "127.0.0.1:2222");
  }
  {
    scoped_env env("TF_CONFIG", R"({"cluster": {"ps": ["a:1"]}, "task": {"type": "worker"}})");
    check_error(task_config::from_tf_config_env(),
                "task type 'worker' is not a job of the cluster");
  }
}
