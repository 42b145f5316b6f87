#!/usr/bin/env bash
# Runs a command RUNS times and prints one line: LABEL, median and minimum wall
# seconds, peak resident memory (MiB) over the runs. The command's stdout goes
# to the file named by $TIME_COMMAND_OUT when set (the last run's), else nowhere.
# Usage: scripts/time-command.sh RUNS LABEL -- COMMAND [ARGS...]
set -euo pipefail
runs=$1
label=$2
shift 2
[ "${1:-}" = "--" ] && shift
[ -x /usr/bin/time ] || { echo "time-command: needs GNU time (apt-get install time)" >&2; exit 2; }
walls=()
rss=0
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.time"' EXIT
for _ in $(seq "$runs"); do
  /usr/bin/time -f '%e %M' -o "$tmp.time" "$@" >"$tmp"
  read -r wall kib <"$tmp.time"
  walls+=("$wall")
  [ "$kib" -gt "$rss" ] && rss=$kib
done
[ -n "${TIME_COMMAND_OUT:-}" ] && cp "$tmp" "$TIME_COMMAND_OUT"
sorted=$(printf '%s\n' "${walls[@]}" | sort -g)
med=$(awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}' <<<"$sorted")
min=$(head -n1 <<<"$sorted")
printf '%-34s %10s %10s %10s\n' "$label" "$med" "$min" "$((rss / 1024))"
