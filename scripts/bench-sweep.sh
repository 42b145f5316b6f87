#!/usr/bin/env bash
# Times `podsim sweep` on LLaMA-3-70B decode on the v5e 16x16 slice (256 chips,
# the embedded defaults), varying link bandwidth (every dimension) x hop
# latency x batch, at 10, 100 and 1000 points, with the flow and the
# analytical network models, and prints median and minimum wall time and peak
# memory over RUNS runs. Peak memory should not grow with the points (rows are
# written as they finish); the 1000-point flow sweep should take minutes.
# Usage: scripts/bench-sweep.sh [RUNS] [JOBS]   (default 3 runs, 2 jobs; needs build/)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
jobs=${2:-2}
podsim=build/src/cli/podsim
[ -x "$podsim" ] || { echo "bench-sweep: build first (scripts/build.sh)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# sweep NAME NETWORK BANDWIDTHS LATENCIES BATCHES: a grid over the embedded defaults.
sweep() {
  cat >"$dir/$1.textproto" <<SWEEP
# proto-message: podsim.Sweep
name: "$1"
network: "$2"
parameters {
  path: "topology.torus.dims[0].link_bandwidth_gbps"
  also: "topology.torus.dims[1].link_bandwidth_gbps"
  linear { start: 10 stop: $(( $3 * 10 )) step: 10 }
}
parameters {
  path: "topology.torus.dims[0].hop_latency_ns"
  also: "topology.torus.dims[1].hop_latency_ns"
  linear { start: 500 stop: $(( $4 * 500 )) step: 500 }
}
parameters { path: "workload.scenario.batch" linear { start: 16 stop: $(( $5 * 16 )) step: 16 } }
SWEEP
}

printf '%-34s %10s %10s %10s\n' case wall_s_med wall_s_min rss_MiB
for network in flow analytical; do
  sweep "p10-$network" "$network" 10 1 1
  sweep "p100-$network" "$network" 10 10 1
  sweep "p1000-$network" "$network" 10 10 10
  for n in 10 100 1000; do
    scripts/time-command.sh "$runs" "$n points, $network, --jobs $jobs" -- \
      "$podsim" sweep "$dir/p$n-$network.textproto" --jobs "$jobs" --quiet
  done
done
