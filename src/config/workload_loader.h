// Loading workloads (proto/podsim/workload.proto) into validated specs, and
// telling workload files from topology files.
//
// A workload is either a list of collectives on a device mesh or one serving
// step of a transformer (model + scenario + sharding, WorkloadSpec::serving).
// It is checked against the pod it will run on: its mesh names that pod's
// torus dimensions, every collective's buffer and every sharded shape must
// divide evenly over the groups that mesh makes. So each loader takes the
// PodSpec (from load_topology_file() or default_topology()).
//
// Every function throws InputError listing every problem found, each with the
// file, the field path, the reason and, for text input, the line:column
// (docs/inputs.md lists the rules).
//
// Every loader takes the `--set` overrides (config/overrides.h) and applies
// those whose path starts with "workload." to the parsed podsim.Workload
// before validation (the others are left for the topology loaders); bad ones
// are InputErrors too. The spec records them (WorkloadSpec::overrides) and the
// SHA-256 of the input's bytes (WorkloadSpec::source_sha256).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "config/diagnostics.h"
#include "config/overrides.h"
#include "config/topology_spec.h"
#include "config/workload_spec.h"

namespace podsim::config {

// Reads and parses a workload file; the extension picks the format as for
// load_topology_file(). source_file and diagnostics name the file as `path`
// spells it.
WorkloadSpec load_workload_file(const std::filesystem::path& path, const PodSpec& pod,
                                const Overrides& overrides = {});
// The same applying the overrides of `roots` ("workload" and, for a serve
// file's replica i, "replicas[i].workload": config/serve_overrides.h).
WorkloadSpec load_workload_file(const std::filesystem::path& path, const PodSpec& pod,
                                const Overrides& overrides, const OverrideRoots& roots);

// Protobuf text format. `source_name` names the input in diagnostics and
// becomes WorkloadSpec::source_file.
WorkloadSpec parse_workload_text(std::string_view text, std::string source_name, const PodSpec& pod,
                                 const Overrides& overrides = {});

// Protobuf binary wire format. Unknown fields are errors here too.
WorkloadSpec parse_workload_binary(std::string_view bytes, std::string source_name,
                                   const PodSpec& pod, const Overrides& overrides = {});

// The workload compiled into the binary: workloads/llama3-70b-decode-v5e.textproto
// (one decode step of LLaMA-3-70B, 16-way tensor parallel x 16 replicas),
// embedded at build time, loaded against `pod`. It is written for the
// default pod (default_topology(), named default_workload_topology_name());
// on another pod it may not fit, which is an InputError like any workload's.
// source_file is "<embedded:llama3-70b-decode-v5e>".
WorkloadSpec default_workload(const PodSpec& pod, const Overrides& overrides = {});

// The text default_workload() parses, comments included.
std::string default_workload_text();

// The name of the pod the default workload is written for, "tpu-v5e-16x16":
// the embedded default pod (default_topology().name).
std::string default_workload_topology_name();

enum class FileKind { kTopology, kWorkload, kCalibration, kPricing };

// What an input file holds, so that one command can take both kinds.
//  - Text files: the "# proto-message: podsim.Topology" (or podsim.Workload,
//    podsim.CalibrationProfile, podsim.Pricing) line among the comment lines
//    that open the file decides. Any other message name is an InputError.
//  - Without that line, and for binary files: kTopology when the contents
//    parse as a podsim.Topology with no error (syntax, wire format, unknown
//    field; rules are not checked), else kWorkload when they parse so as a
//    podsim.Workload, else kCalibration when they parse so as a
//    podsim.CalibrationProfile, else kPricing when they parse so as a
//    podsim.Pricing; otherwise kTopology, whose loader then reports what is
//    wrong. Input that parses as several (empty, or only a name) counts as a
//    topology.
// Throws InputError when the file cannot be read. Reads the whole file.
FileKind sniff_file_kind(const std::filesystem::path& path);

// A workload read and parsed once, then loaded many times with different
// overrides, as a sweep's points load their base input: each load() returns
// what load_workload_file() (or default_workload()) would with those overrides,
// diagnostics included, without reading or parsing the input again. An
// input that cannot be read or parsed makes every load() throw its
// InputError. Copies share the parsed message; load() is const and may run
// on several threads at once.
class WorkloadSource {
 public:
  static WorkloadSource file(const std::filesystem::path& path);
  static WorkloadSource embedded();
  WorkloadSpec load(const PodSpec& pod, const Overrides& overrides = {}) const;

  struct Parsed;  // defined in the .cc

 private:
  explicit WorkloadSource(std::shared_ptr<const Parsed> parsed) : parsed_(std::move(parsed)) {}
  std::shared_ptr<const Parsed> parsed_;
};

}  // namespace podsim::config
