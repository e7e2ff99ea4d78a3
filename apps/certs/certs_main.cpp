// caflow-certs: a cluster's CA and its certificates, for mutual TLS (README, "Secure clusters").
//
//   caflow-certs ca DIR [--name NAME] [--days N] [--force]
//   caflow-certs issue DIR --cluster SPEC [--days N] [--force]   # DIR/<job>-<task>.{pem,key}
//   caflow-certs issue DIR --client NAME [--days N] [--force]    # DIR/<name>.{pem,key}
//
// Exit status 2 for a bad command line (unknown flag, bad SPEC or NAME), 1 when a file cannot be
// read or written (no CA in DIR, files that exist without --force): one line on stderr, naming
// the culprit, and nothing written.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cluster_ca.hpp"
#include "issue.hpp"

using namespace caflow;
using namespace caflow::certs;

namespace {

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "caflow-certs: %s\n", message.c_str());
  return code;
}

int report(const status_or<std::vector<std::string>>& written) {
  if (!written.ok()) return fail(1, written.get_status().message());
  for (const auto& file : *written) std::printf("caflow-certs: wrote %s\n", file.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"caflow-certs: makes a cluster's certificate authority and the certificates it "
               "signs for tasks and clients (mutual TLS: --tls-cert, --tls-key, --tls-ca)."};
  app.require_subcommand(1);

  std::string ca_dir;
  ca_options ca;
  auto* ca_cmd = app.add_subcommand("ca", "a new CA: DIR/ca.pem and DIR/ca.key (mode 0600)");
  ca_cmd->add_option("DIR", ca_dir, "directory (created when missing)")->required();
  ca_cmd->add_option("--name", ca.name, "the CA's common name")->capture_default_str();
  ca_cmd->add_option("--days", ca.days, "validity in days")->capture_default_str()->check(CLI::Range(1, 36500));
  ca_cmd->add_flag("--force", ca.force, "replace an existing CA (its certificates stop working)");

  std::string issue_dir, spec_flag, client;
  int days = 365;
  bool force = false;
  auto* issue_cmd = app.add_subcommand(
      "issue", "certificates signed by DIR's CA: DIR/<job>-<task>.{pem,key} or DIR/<name>.{pem,key}");
  issue_cmd->add_option("DIR", issue_dir, "directory holding ca.pem and ca.key")->required();
  auto* cluster_opt = issue_cmd->add_option(
      "--cluster", spec_flag, "one certificate per task (caflow-server's --cluster syntax)");
  auto* client_opt = issue_cmd->add_option("--client", client, "one client certificate");
  cluster_opt->excludes(client_opt);
  issue_cmd->add_option("--days", days, "validity in days")->capture_default_str()->check(CLI::Range(1, 36500));
  issue_cmd->add_flag("--force", force, "replace existing files");

  // CLI11 would say only "A subcommand is required".
  if (argc > 1 && argv[1][0] != '-' && std::string(argv[1]) != "ca" && std::string(argv[1]) != "issue")
    return fail(2, "unknown command '" + std::string(argv[1]) + "': 'ca' or 'issue' (see --help)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(2, std::string(e.what()) + " (see --help)");
  }

  if (*ca_cmd) return report(create_ca(ca_dir, ca));

  std::vector<planned_certificate> plan;
  if (!*cluster_opt && !*client_opt)
    return fail(2, "issue needs --cluster SPEC (task certificates) or --client NAME");
  if (*cluster_opt) {
    auto spec = cluster_spec::from_flag(spec_flag);
    if (!spec.ok()) return fail(2, "--cluster: " + spec.get_status().message());
    plan = plan_cluster(*spec, days);
  } else {
    auto p = plan_client(client, days);
    if (!p.ok()) return fail(2, p.get_status().message());
    plan.push_back(std::move(*p));
  }
  return report(issue(issue_dir, plan, force));
}
