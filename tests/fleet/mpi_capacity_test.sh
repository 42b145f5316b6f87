#!/usr/bin/env bash
# podsim capacity under `mpirun -np 2` and `-np 3` (its serve runs dealt
# across the ranks) prints the same bytes as one process, for the rate
# search, for --target-rate and for --fewest-replicas, and only rank 0 writes.
# Usage: mpi_capacity_test.sh MPIEXEC PODSIM SOURCE_DIR
set -euo pipefail
mpiexec=$1
podsim=$2
src=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/../support/mpi_env.sh"
serve=$src/workloads/serve
search=(capacity "$serve/llama3-70b-azure-conv.serve.textproto")
target=(capacity "$serve/llama3-70b-disaggregated.serve.textproto"
        "$serve/llama3-70b-azure-conv.serve.textproto" --target-rate 2 --ttft-ms 1000 --tpot-ms 100)
copies=(capacity "$serve/llama3-70b-azure-conv.serve.textproto" --target-rate 8 --fewest-replicas)
"$podsim" "${search[@]}" >"$dir/one.txt"
"$podsim" "${copies[@]}" >"$dir/one-copies.txt"
"$podsim" "${target[@]}" >"$dir/one-target.txt"
for np in 2 3; do
  "$mpiexec" --oversubscribe -np "$np" "$podsim" "${search[@]}" >"$dir/mpi.txt"
  "$mpiexec" --oversubscribe -np "$np" "$podsim" "${target[@]}" --jobs 2 >"$dir/mpi-target.txt"
  cmp "$dir/one.txt" "$dir/mpi.txt"
  cmp "$dir/one-target.txt" "$dir/mpi-target.txt"
  "$mpiexec" --oversubscribe -np "$np" "$podsim" "${copies[@]}" >"$dir/mpi-copies.txt"
  cmp "$dir/one-copies.txt" "$dir/mpi-copies.txt"
done
grep -q "capacity of " "$dir/one.txt" || { echo "mpi_capacity_test: no capacity line" >&2; exit 1; }
grep -q "fewest chips at " "$dir/one-target.txt" ||
  { echo "mpi_capacity_test: no fewest-chips line" >&2; exit 1; }
echo "mpi_capacity_test: 2 and 3 ranks == 1 process ($(wc -l <"$dir/one.txt") lines)"
