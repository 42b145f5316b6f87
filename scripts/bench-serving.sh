#!/usr/bin/env bash
# Times whole serving-step runs and prints median and minimum wall time and
# peak memory over RUNS runs:
#   the embedded default (LLaMA-3-70B decode on v5e 16x16)     [target: < 1 s]
#   LLaMA-3-405B decode on the v4 16x16x16 torus (4096 chips)  [target: < 5 s, < 2 GiB]
#   the same with replica folding off (every chip simulated)
# Usage: scripts/bench-serving.sh [RUNS] [--no-full]   (default 3; needs a build in build/)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
podsim=build/src/cli/podsim
[ -x "$podsim" ] || { echo "bench-serving: build first (scripts/build.sh)" >&2; exit 2; }
w405=(--workload workloads/llama3-405b-decode-v4.textproto --topology topologies/v4-16x16x16.textproto)

printf '%-34s %10s %10s %10s\n' case wall_s_med wall_s_min rss_MiB
scripts/time-command.sh "$runs" "default run (70B decode, v5e)" -- "$podsim" run --quiet
scripts/time-command.sh "$runs" "405B decode, v4 16x16x16" -- "$podsim" run --quiet "${w405[@]}"
if [ "${2:-}" != "--no-full" ]; then
  scripts/time-command.sh 1 "405B decode, v4, --no-fold" -- "$podsim" run --quiet --no-fold "${w405[@]}"
fi
