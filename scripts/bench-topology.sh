#!/usr/bin/env bash
# Times loading, validating and building the graph of the largest shipped pod
# (v5p 16x20x28, 8960 chips) through `podsim topo`, which also computes the
# diameter and bisection [target: < 0.5 s, < 200 MB], and the 4096-chip v4 pod.
# Usage: scripts/bench-topology.sh [RUNS]   (default 5; needs a build in build/)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
podsim=build/src/cli/podsim
[ -x "$podsim" ] || { echo "bench-topology: build first (scripts/build.sh)" >&2; exit 2; }
printf '%-34s %10s %10s %10s\n' case wall_s_med wall_s_min rss_MiB
scripts/time-command.sh "$runs" "topo v5p-16x20x28 (8960 chips)" -- \
  "$podsim" topo topologies/v5p-16x20x28.textproto --format json
scripts/time-command.sh "$runs" "topo v4-16x16x16 (4096 chips)" -- \
  "$podsim" topo topologies/v4-16x16x16.textproto --format json
