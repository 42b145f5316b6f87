#!/usr/bin/env bash
# Times `podsim run` on the shipped LLaMA-3-70B decode step on the v5e 16x16
# slice (256 chips) and its prefill with each compute model, folded (as runs
# go by default) and with every chip played (--no-fold --no-symmetry), and
# prints median and minimum wall time and peak memory over RUNS runs. The
# TensorCore model (docs/tensorcore.md) should stay within 5x the roofline's
# wall time (issue 29).
# Usage: scripts/bench-compute-models.sh [RUNS]   (default 5 runs; needs build/)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
podsim=build/src/cli/podsim
[ -x "$podsim" ] || { echo "bench-compute-models: build first (scripts/build.sh)" >&2; exit 2; }

printf '%-34s %10s %10s %10s\n' case wall_s_med wall_s_min rss_MiB
for phase in decode prefill; do
  for play in folded full; do
    flags=()
    [ "$play" = full ] && flags=(--no-fold --no-symmetry)
    for compute in roofline systolic tensorcore; do
      scripts/time-command.sh "$runs" "70b $phase, $play, $compute" -- \
        "$podsim" run -w "workloads/llama3-70b-$phase-v5e.textproto" \
        -t topologies/v5e-16x16.textproto --compute "$compute" "${flags[@]}" --format csv
    done
  done
done
