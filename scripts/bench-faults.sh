#!/usr/bin/env bash
# Times whole `podsim run` invocations on pods with one failed link, beside
# the same runs on the healthy pod, and prints median and minimum wall time
# and peak memory over RUNS runs (issue 33's cases):
#   allreduce16   1 GiB all-reduce on v4 16x16x16, healthy and with the +y
#                 link of chip (0,0,0) failed (every chip's rings cross
#                 the fault's neighbourhood: played in full)
#   405b          LLaMA-3-405B decode on v4 16x16x16, healthy and with that
#                 link failed (the replicas the fault reaches played chip by
#                 chip, one healthy replica for the rest: engine/fold.h)
#                                                  [target: faulty < 5 s]
#   deepseek      DeepSeek-V3 decode on the twisted v5p 8x16x16, healthy and
#                 with that link failed (the expert all-to-all keeps its
#                 segments round the fault, docs/collectives.md)
#   allreduce64   1 GiB all-reduce on a 64x64x64 torus (262,144 chips),
#                 symmetric              [target: < 0.5 s, < 150 MB]
# Usage: scripts/bench-faults.sh [RUNS] [CASE...]   (default 3 runs, every
# case; needs a build in build/). PODSIM names the binary.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
shift || true
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(allreduce16 405b deepseek allreduce64)
podsim=${PODSIM:-build/src/cli/podsim}
[ -x "$podsim" ] || { echo "bench-faults: build first (scripts/build.sh)" >&2; exit 2; }
v4=topologies/v4-16x16x16.textproto
allreduce=workloads/allreduce-1gib-v4-16x16x16.textproto
failed=(--set 'topology.failed_links[0].coords=[0,0,0]' --set 'topology.failed_links[0].dim=1'
        --set 'topology.failed_links[0].direction=1')

printf '%-34s %10s %10s %10s\n' case wall_s_med wall_s_min rss_MiB
for c in "${cases[@]}"; do
  case $c in
    allreduce16)
      scripts/time-command.sh "$runs" "all-reduce 16x16x16" -- "$podsim" run --quiet \
        -t "$v4" -w "$allreduce"
      scripts/time-command.sh "$runs" "all-reduce 16x16x16, 1 failed" -- "$podsim" run --quiet \
        -t "$v4" -w "$allreduce" "${failed[@]}" ;;
    405b)
      scripts/time-command.sh "$runs" "405B decode v4 4096" -- "$podsim" run --quiet \
        -t "$v4" -w workloads/llama3-405b-decode-v4.textproto
      scripts/time-command.sh "$runs" "405B decode v4 4096, 1 failed" -- "$podsim" run --quiet \
        -t "$v4" -w workloads/llama3-405b-decode-v4.textproto "${failed[@]}" ;;
    deepseek)
      scripts/time-command.sh "$runs" "DeepSeek-V3 v5p 8x16x16tw" -- "$podsim" run --quiet \
        -t topologies/v5p-8x16x16-twisted.textproto -w workloads/deepseek-v3-decode-v5p.textproto
      scripts/time-command.sh "$runs" "DeepSeek-V3 v5p 8x16x16tw, 1 failed" -- "$podsim" run \
        --quiet -t topologies/v5p-8x16x16-twisted.textproto \
        -w workloads/deepseek-v3-decode-v5p.textproto "${failed[@]}" ;;
    allreduce64)
      scripts/time-command.sh "$runs" "all-reduce 64x64x64 (262,144 chips)" -- "$podsim" run \
        --quiet -t "$v4" -w "$allreduce" --set 'topology.torus.dims[0].size=64' \
        --set 'topology.torus.dims[1].size=64' --set 'topology.torus.dims[2].size=64' ;;
    *) echo "bench-faults: unknown case '$c'" >&2; exit 2 ;;
  esac
done
