#!/usr/bin/env bash
# Times issue 13's pod-scale cases, whole `podsim run` invocations, and prints
# median and minimum wall time and peak memory over RUNS runs:
#   DeepSeek-V3 decode on the v5p 8x16x16 twisted slice (2048 chips; nothing
#     folds: the expert all-to-all spans the pod), flow    [target: < 3 s]
#   LLaMA-3-405B decode on v4 16x16x16, --no-fold (4096 chips), flow
#                                                          [target: < 10 s, < 256 MB]
#   1 GiB all-reduce on a 32x32x32 torus (32768 chips: the v4 pod's file with
#     every dimension set to 32), flow                     [target: < 2 s, < 100 MB]
#   1 GiB all-reduce on v4 16x16x16 (4096 chips), flow     [target: < 0.15 s]
# Each as podsim runs it by default (one chip per class of a translation
# symmetry where exact, docs/architecture.md) and, as CASE-full, with
# --no-symmetry (every chip played). `scaling` times the 405B decode step on
# 16x16xZ (Z = 16, 32, 64: 4096 to 16384 chips, batch 256 per replica) and
# the all-reduce on n^3 tori (n = 8, 16, 32, 64), for how wall time grows
# with chips.
# Usage: scripts/bench-pod-scale.sh [RUNS] [CASE...]   (default 3 runs, every
# case; cases: deepseek, 405b, allreduce32, allreduce16, each also with -full,
# and scaling). PODSIM names the binary (default build/src/cli/podsim).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
shift || true
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(deepseek 405b allreduce32 allreduce16)
podsim=${PODSIM:-build/src/cli/podsim}
[ -x "$podsim" ] || { echo "bench-pod-scale: build first (scripts/build.sh)" >&2; exit 2; }
v4=topologies/v4-16x16x16.textproto
allreduce=workloads/allreduce-1gib-v4-16x16x16.textproto
side32=(--set 'topology.torus.dims[0].size=32' --set 'topology.torus.dims[1].size=32'
        --set 'topology.torus.dims[2].size=32')

printf '%-34s %10s %10s %10s\n' case wall_s_med wall_s_min rss_MiB
for c in "${cases[@]}"; do
  extra=()
  tag=
  if [[ $c == *-full ]]; then
    extra=(--no-symmetry)
    tag=", full"
    c=${c%-full}
  fi
  case $c in
    deepseek)
      scripts/time-command.sh "$runs" "DeepSeek-V3 decode v5p 8x16x16tw$tag" -- "$podsim" run --quiet "${extra[@]}" \
        -t topologies/v5p-8x16x16-twisted.textproto -w workloads/deepseek-v3-decode-v5p.textproto ;;
    405b)
      scripts/time-command.sh "$runs" "405B decode v4 4096, --no-fold$tag" -- "$podsim" run --quiet "${extra[@]}" \
        --no-fold -t "$v4" -w workloads/llama3-405b-decode-v4.textproto ;;
    allreduce32)
      scripts/time-command.sh "$runs" "all-reduce 1GiB 32x32x32 flow$tag" -- "$podsim" run --quiet "${extra[@]}" \
        -t "$v4" -w "$allreduce" "${side32[@]}" ;;
    allreduce16)
      scripts/time-command.sh "$runs" "all-reduce 1GiB 16x16x16 flow$tag" -- "$podsim" run --quiet "${extra[@]}" \
        -t "$v4" -w "$allreduce" ;;
    scaling)
      for z in 16 32 64; do
        scripts/time-command.sh "$runs" "405B decode 16x16x$z, --no-fold" -- "$podsim" run \
          --quiet --no-fold -t "$v4" -w workloads/llama3-405b-decode-v4.textproto \
          --set "topology.torus.dims[2].size=$z" --set "workload.scenario.batch=$((256 * z))"
      done
      for n in 8 16 32 64; do
        scripts/time-command.sh "$runs" "all-reduce 1GiB ${n}x${n}x${n} flow" -- "$podsim" run \
          --quiet -t "$v4" -w "$allreduce" --set "topology.torus.dims[0].size=$n" \
          --set "topology.torus.dims[1].size=$n" --set "topology.torus.dims[2].size=$n"
      done ;;
    *) echo "bench-pod-scale: unknown case '$c'" >&2; exit 2 ;;
  esac
done
