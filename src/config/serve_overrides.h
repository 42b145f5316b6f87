// `--set PATH=VALUE` on `podsim serve` and `podsim capacity`, and in sweep
// files over a serve file (docs/inputs.md, "Overrides of serve files"): the
// roots a path may start with and which input each goes to.
//
//  - "serve.": the serve file itself (podsim.ServeConfig):
//    `serve.replicas[0].max_batch=64`, `serve.arrivals.poisson.rate_per_s=3`,
//    `serve.slo.ttft_ms=500`;
//  - "topology.", "workload.": every replica's topology or workload file
//    (not a speculative draft's own slice or workload, nor
//    kv_transfer.ici_topology);
//  - "replicas[i].topology.", "replicas[i].workload.": replica entry i's
//    alone (`replicas[1].topology.torus.dims[0].link_bandwidth_gbps=100`),
//    i counted after the serve overrides (which may append an entry).
// Overrides of one input apply in command-line order whatever their root,
// so the later of two on one field wins. The serve loader
// (config/serve_loader.h) applies them before any rule is checked.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "config/diagnostics.h"
#include "config/overrides.h"

namespace podsim::config {

// The root of the serve file's own fields.
inline constexpr std::string_view kServeRoot = "serve";

// True when `path` starts with one of the roots above (and goes on after it).
bool serve_rooted(std::string_view path);

// Throws InputError (file "--set", one diagnostic per bad override) for any
// override whose path does not start with one of the roots above.
void check_serve_override_roots(const Overrides& overrides);

// The roots replica entry `index`'s `input` ("topology" or "workload")
// takes: {"topology", "replicas[1].topology"}.
OverrideRoots replica_roots(std::string_view input, size_t index);

// Throws InputError (file "--set") for every override naming a replica
// entry `replicas[i]` with i >= `replicas`, the count in `source`.
void check_replica_indexes(const Overrides& overrides, size_t replicas, const std::string& source);

}  // namespace podsim::config
