#!/usr/bin/env bash
# Determinism: runs the regression suite twice into two directories and
# checks that every CSV and JSON file is byte-identical across the runs.
# Usage: tests/regression/determinism.sh PODSIM WORKDIR   (WORKDIR is recreated)
set -euo pipefail
podsim=${1:?usage: determinism.sh PODSIM WORKDIR}
work=${2:?usage: determinism.sh PODSIM WORKDIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work"
mkdir -p "$work"
for run in first second; do
  "$root/scripts/nightly-regression.sh" --run-only --quiet --podsim "$podsim" --results "$work/$run"
done
files=$(cd "$work/first" && find . -type f | sort)
count=$(printf '%s\n' "$files" | grep -c . || true)
[ "$count" -gt 2 ] || { echo "determinism: the suite wrote only $count files" >&2; exit 1; }
status=0
while IFS= read -r f; do
  if ! cmp -s "$work/first/$f" "$work/second/$f"; then
    echo "determinism: $f differs between two runs of the suite" >&2
    status=1
  fi
done <<<"$files"
if ! cmp -s <(printf '%s\n' "$files") <(cd "$work/second" && find . -type f | sort); then
  echo "determinism: the two runs wrote different sets of files" >&2
  status=1
fi
[ "$status" = 1 ] || { echo "determinism: $count files byte-identical across two runs"; rm -rf "$work"; }
exit "$status"
