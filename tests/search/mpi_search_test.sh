#!/usr/bin/env bash
# A search under `mpirun -np 2` (its evaluations dealt across the ranks)
# prints the same frontier and writes the same best workload as one process,
# and only rank 0 writes.
# Usage: mpi_search_test.sh MPIEXEC PODSIM SOURCE_DIR
set -euo pipefail
mpiexec=$1
podsim=$2
src=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/../support/mpi_env.sh"
args=(search --model "$src/workloads/llama3-8b-decode-v5e.textproto"
      --topology "$src/topologies/v5e-2x2.textproto" --topology "$src/topologies/v5e-4x4.textproto"
      --phase decode --context 1024 --batches 8,16,32 --tpot-ms 1000 --quiet)
"$podsim" "${args[@]}" --jobs 1 --out "$dir/one.csv" --write-best "$dir/one.textproto"
"$mpiexec" --oversubscribe -np 2 "$podsim" "${args[@]}" --jobs 2 --out "$dir/mpi.csv" \
  --write-best "$dir/mpi.textproto"
"$mpiexec" --oversubscribe -np 2 "$podsim" "${args[@]}" >"$dir/mpi-stdout.csv" 2>"$dir/mpi-stderr.txt"
cmp "$dir/one.csv" "$dir/mpi.csv"
cmp "$dir/one.csv" "$dir/mpi-stdout.csv"
cmp "$dir/one.textproto" "$dir/mpi.textproto"
lines=$(wc -l <"$dir/one.csv")
[ "$lines" -ge 2 ] || { echo "mpi_search_test: only $lines lines" >&2; exit 1; }
echo "mpi_search_test: 2 ranks == 1 process ($lines frontier lines)"
