#!/usr/bin/env bash
# Times whole `podsim run` invocations of the collective speed cases and prints
# median and minimum wall time and peak memory over RUNS runs:
#   1 GiB all-reduce on v5e 16x16, flow model
#   1 GiB all-reduce on v4 16x16x16 (4096 chips), flow model  [target: < 1 s, < 1 GiB]
#   1 GiB all-reduce on v5e 16x16, packet model, 64 KiB packets
# Usage: scripts/bench-collectives.sh [RUNS]   (default 5; needs a build in build/)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
podsim=build/src/cli/podsim
[ -x "$podsim" ] || { echo "bench-collectives: build first (scripts/build.sh)" >&2; exit 2; }
v5e=(--topology topologies/v5e-16x16.textproto --workload workloads/allreduce-1gib-v5e-16x16.textproto)
v4=(--topology topologies/v4-16x16x16.textproto --workload workloads/allreduce-1gib-v4-16x16x16.textproto)

printf '%-34s %10s %10s %10s\n' case wall_s_med wall_s_min rss_MiB
scripts/time-command.sh "$runs" "all-reduce 1GiB v5e-16x16 flow" -- "$podsim" run "${v5e[@]}" --network flow
scripts/time-command.sh "$runs" "all-reduce 1GiB v4-16x16x16 flow" -- "$podsim" run "${v4[@]}" --network flow
scripts/time-command.sh "$runs" "all-reduce 1GiB v5e-16x16 packet64K" -- \
  "$podsim" run "${v5e[@]}" --network packet --packet-bytes 65536
