// Every file an input names, so that no output is written over one of them.
//
// A sweep file names its base topology and workload and, as parameter
// values, more of them; a serve file names each replica's topology and
// workload, an arrival trace and the topology its KV caches cross. The
// commands check their outputs against these as well as against the files
// given on the command line (cli/output.h, refuse_clobbering).
#pragma once

#include <string>
#include <vector>

#include "config/serve_spec.h"
#include "config/sweep_spec.h"

namespace podsim::config {

struct NamedInputFile {
  std::string what;  // "the sweep's topology", "replica 'r0' workload", ...
  std::string path;  // as resolved by the loader
};

// The sweep file itself, its base inputs and every file a parameter varies over.
std::vector<NamedInputFile> files_named_by(const SweepSpec& spec);

// The serve file itself, every replica's topology and workload, the arrival
// trace and the KV transfer's ICI topology.
std::vector<NamedInputFile> files_named_by(const ServeSpec& spec);

}  // namespace podsim::config
