// Command-line overrides of input fields: `--set PATH=VALUE`.
//
// An override names one field of the topology or the workload by its text
// format path under a root, "topology." or "workload."
// (`topology.torus.dims[0].link_bandwidth_gbps=100`,
// `workload.sharding.tensor_axes=[model]`). The loaders of
// config/topology_loader.h and config/workload_loader.h apply the overrides
// of their root to the parsed message before validation, so every rule
// applies to the overridden value, and a rule that fails on an overridden
// field says which override set it. The loaders resolve paths and values
// through the Protobuf descriptors, so every scalar, enum and
// repeated-scalar field is overridable the day it is added to the schema.
// docs/inputs.md ("Overrides") gives the syntax and the errors.
//
// Here: the syntax of one `--set` argument and the check of its root; the
// values are checked against the schema when a loader applies them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/diagnostics.h"

namespace podsim::config {

struct Override {
  std::string path;   // "topology.torus.dims[0].link_bandwidth_gbps"
  std::string value;  // "100", "[model]", "PREFILL"

  friend bool operator==(const Override&, const Override&) = default;
};

// In command-line order: when two overrides set the same field, the later wins.
using Overrides = std::vector<Override>;

// The roots whose overrides one input takes, without the '.': a run's
// topology takes {"topology"}; replica 1 of a serve file
// {"topology", "replicas[1].topology"} (config/serve_overrides.h).
using OverrideRoots = std::vector<std::string>;

// "PATH=VALUE" -> Override, split at the first '='; spaces around the path and
// the value are dropped. The value may be empty (an empty string). Throws
// InputError (file "--set") when there is no '=' or the path is empty.
Override parse_override(std::string_view text);

// "path=value", the canonical form reports print.
std::string to_string(const Override& o);

// Throws InputError (file "--set", one diagnostic per bad override) for any
// override whose path does not start with "topology." or "workload.".
void check_override_roots(const Overrides& overrides);

// Every "PATH=VALUE" of `texts` parsed and its root checked, in order: what
// `--set` given several times means (the CLI's run and sweep, the Python
// module's `set=`). Throws one InputError (file "--set") with a diagnostic
// per bad override, all of them at once. `check_roots` checks the roots
// (check_override_roots for a run's topology and workload;
// check_serve_override_roots of config/serve_overrides.h for a serve file).
Overrides parse_overrides(const std::vector<std::string>& texts,
                          void (*check_roots)(const Overrides&) = check_override_roots);

}  // namespace podsim::config
