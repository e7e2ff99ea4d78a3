#include "apps/run/run_options.hpp"

#include <CLI/CLI.hpp>

namespace caflow::run_app {

status parse_command_line(int argc, char** argv, run_options* o, bool* help, std::string* help_text) {
  CLI::App app{
      "caflow-run: runs a model TensorFlow wrote (a frozen GraphDef .pb, a .pbtxt, or a\n"
      "TensorFlow.js model.json with its weight shards) locally or on a cluster. Inputs come\n"
      "from .npy files or a fixed pattern; outputs are printed as shape, sum, min and max and\n"
      "written as .npy with --output-dir."};
  app.add_option("model", o->model, "the model file")->required();
  app.add_option("--input", o->inputs,
                 "NAME=FILE.npy: feed input NAME from a NumPy file (repeatable). Inputs not "
                 "given get the pattern x[i] = ((i * 7919) % 1000) / 1000 - 0.5");
  app.add_option("--shape", o->shapes,
                 "NAME=D0,D1,...: the shape of pattern input NAME, where the model leaves "
                 "dimensions unknown (repeatable)");
  app.add_option("--output", o->outputs,
                 "fetch this tensor (\"node\" or \"node:port\") instead of the model's outputs "
                 "(repeatable)");
  app.add_option("--output-dir", o->output_dir, "write every fetched tensor there as NAME.npy");
  app.add_option("--batch", o->batch,
                 "leading dimension of the pattern inputs (default: the model's, or 1 when "
                 "unknown); a model whose inputs fix another is run with that dimension relaxed")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  app.add_option("--runs", o->runs,
                 "how many times to run; past the first (which plans the graph) prints latency "
                 "percentiles")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--threads", o->threads,
                 "threads of a local session's CPU device (intra- and inter-op; default: every "
                 "hardware thread)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--target", o->target, "local (default) or caflow://host:port of a cluster's task");
  app.add_option("--place", o->place,
                 "PREFIX=DEVICE,...: nodes whose name starts with PREFIX run on DEVICE (the "
                 "longest prefix wins), e.g. 'conv_1=/job:worker/task:1'");
  app.add_option("--export", o->export_path,
                 "also write the graph as it runs (after --place and --batch) as a binary "
                 "GraphDef (.pb) with its weights: a TF.js model becomes a frozen graph");
  app.add_option("--export-saved-model", o->export_saved_model,
                 "DIR: also write the model as a TF1 SavedModel there (a version folder, e.g. "
                 "models/face/1, as TF Serving loads them)");
  app.add_flag("--log-device-placement", o->log_device_placement,
               "print where every node runs, once");
  app.add_option("--tls-cert", o->security.cert, "PEM client certificate for a TLS cluster");
  app.add_option("--tls-key", o->security.key, "PEM private key of --tls-cert");
  app.add_option("--tls-ca", o->security.ca, "PEM CA that signed the cluster's certificates");
  app.add_option("--cluster-id", o->security.cluster_id, "the cluster's id (default: caflow)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    *help = true;
    *help_text = app.help();
    return {};
  } catch (const CLI::ParseError& e) {
    return errors::invalid_argument(e.what());
  }
  return validate(o->security);
}

}  // namespace caflow::run_app
