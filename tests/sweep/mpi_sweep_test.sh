#!/usr/bin/env bash
# A sweep under `mpirun -np 2` writes the same bytes as one process with
# --jobs 1 (CSV and JSON Lines), and only rank 0 writes.
# Usage: mpi_sweep_test.sh MPIEXEC PODSIM SWEEP
set -euo pipefail
mpiexec=$1
podsim=$2
sweep=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/../support/mpi_env.sh"
for format in csv jsonl; do
  "$podsim" sweep "$sweep" --jobs 1 --quiet --format "$format" --out "$dir/one.$format"
  "$mpiexec" --oversubscribe -np 2 "$podsim" sweep "$sweep" --jobs 2 --quiet \
    --format "$format" --out "$dir/mpi.$format"
  "$mpiexec" --oversubscribe -np 2 "$podsim" sweep "$sweep" --quiet --format "$format" \
    >"$dir/mpi-stdout.$format"
  cmp "$dir/one.$format" "$dir/mpi.$format"
  cmp "$dir/one.$format" "$dir/mpi-stdout.$format"
  lines=$(wc -l <"$dir/one.$format")
  [ "$lines" -ge 3 ] || { echo "mpi_sweep_test: only $lines lines of $format" >&2; exit 1; }
done
echo "mpi_sweep_test: 2 ranks == 1 process ($(wc -l <"$dir/one.csv") CSV lines)"
