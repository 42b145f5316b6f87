#!/usr/bin/env bash
# Times whole `podsim run` invocations of the collective speed cases (issue:
# the ICI network) and prints wall time and peak memory, median of N runs:
#   1 GiB all-reduce on v5e 16x16, flow model
#   1 GiB all-reduce on v4 16x16x16 (4096 chips), flow model  [target: < 1 s, < 1 GiB]
#   1 GiB all-reduce on v5e 16x16, packet model, 64 KiB packets
# Usage: scripts/bench-collectives.sh [RUNS]   (default 5; needs a build in build/)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
podsim=build/src/cli/podsim
[ -x "$podsim" ] || { echo "bench-collectives: build first (scripts/build.sh)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench-collectives: needs GNU time (apt-get install time)" >&2; exit 2; }

cases=(
  "v5e-16x16 flow|topologies/v5e-16x16.textproto|workloads/allreduce-1gib-v5e-16x16.textproto|--network flow"
  "v4-16x16x16 flow|topologies/v4-16x16x16.textproto|workloads/allreduce-1gib-v4-16x16x16.textproto|--network flow"
  "v5e-16x16 packet 64KiB|topologies/v5e-16x16.textproto|workloads/allreduce-1gib-v5e-16x16.textproto|--network packet --packet-bytes 65536"
)

printf '%-26s %12s %12s %14s %14s\n' case "wall_s(med)" "wall_s(min)" "max_rss_MiB" "simulated_us"
for c in "${cases[@]}"; do
  IFS='|' read -r label topo work extra <<<"$c"
  walls=()
  rss=0
  sim_us=""
  for _ in $(seq "$runs"); do
    out=$(mktemp)
    # shellcheck disable=SC2086
    /usr/bin/time -f '%e %M' -o "$out.time" "$podsim" run --topology "$topo" --workload "$work" $extra --format csv >"$out"
    read -r wall kib <"$out.time"
    walls+=("$wall")
    [ "$kib" -gt "$rss" ] && rss=$kib
    sim_us=$(awk -F, 'NR==2 {print $13}' "$out")
    rm -f "$out" "$out.time"
  done
  med=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  min=$(printf '%s\n' "${walls[@]}" | sort -g | head -n1)
  printf "%-26s %12s %12s %14s %14s\n" "$label" "$med" "$min" "$((rss / 1024))" "$sim_us"
done
