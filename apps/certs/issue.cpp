#include "issue.hpp"

#include <algorithm>
#include <filesystem>

#include "cluster_ca.hpp"
#include "private_files.hpp"

namespace caflow::certs {
namespace {

std::string in_dir(const std::string& dir, const std::string& name) {
  return (std::filesystem::path(dir) / name).string();
}

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

}  // namespace

std::vector<planned_certificate> plan_cluster(const cluster_spec& cluster, int days) {
  std::vector<planned_certificate> plan;
  for (const auto& t : cluster.tasks()) {
    // The spec is validated, so every address splits.
    auto hp = split_host_port(t.address);
    planned_certificate p{.stem = t.job + "-" + std::to_string(t.task),
                          .request = {.common_name = "/job:" + t.job + "/replica:0/task:" +
                                                     std::to_string(t.task),
                                      .hosts = {},
                                      .days = days}};
    if (hp.ok()) p.request.hosts.push_back(hp->host);
    plan.push_back(std::move(p));
  }
  return plan;
}

status_or<planned_certificate> plan_client(const std::string& name, int days) {
  const bool ok_chars = !name.empty() && name.size() <= 64 && name[0] != '.' && name[0] != '-' &&
                        std::all_of(name.begin(), name.end(), name_char);
  if (!ok_chars)
    return errors::invalid_argument("--client '", name,
                                    "' is not a name of 1-64 letters, digits, '.', '_' or '-' "
                                    "(not starting with '.' or '-')");
  if (name == "ca")
    return errors::invalid_argument("--client 'ca' would replace the CA's files ca.pem and ca.key");
  return planned_certificate{.stem = name, .request = {.common_name = name, .hosts = {}, .days = days}};
}

status_or<std::vector<std::string>> issue(const std::string& dir,
                                          const std::vector<planned_certificate>& plan, bool force) {
  CAFLOW_ASSIGN_OR_RETURN(auto ca, load_ca(dir));
  std::vector<std::string> files;
  for (const auto& p : plan) {
    if (p.request.days < 1)
      return errors::invalid_argument("--days must be at least 1, not ", p.request.days);
    files.push_back(in_dir(dir, p.stem + ".pem"));
    files.push_back(in_dir(dir, p.stem + ".key"));
  }
  CAFLOW_RETURN_IF_ERROR(check_absent(files, force));
  for (const auto& p : plan) {
    CAFLOW_ASSIGN_OR_RETURN(auto key, generate_key());
    CAFLOW_ASSIGN_OR_RETURN(auto cert,
                            issue_certificate(p.request, key.get(), ca.cert.get(), ca.key.get()));
    CAFLOW_ASSIGN_OR_RETURN(auto key_pem, key_to_pem(key.get()));
    CAFLOW_ASSIGN_OR_RETURN(auto cert_pem, certificate_to_pem(cert.get()));
    // The key first: a certificate is never there without it.
    CAFLOW_RETURN_IF_ERROR(write_file(in_dir(dir, p.stem + ".key"), key_pem, 0600, force));
    CAFLOW_RETURN_IF_ERROR(write_file(in_dir(dir, p.stem + ".pem"), cert_pem, 0644, force));
  }
  return files;
}

}  // namespace caflow::certs
