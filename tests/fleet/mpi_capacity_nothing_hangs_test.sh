#!/usr/bin/env bash
# Issue 27 for `podsim capacity` under a real `mpirun -np 2`:
#  1. rank 1 stopped with SIGSTOP: the job exits 1 within
#     --rank-timeout-seconds, naming rank 1;
#  2. serve runs past --max-events 1 (every rank rethrows the limit its
#     probes carry): exit 1 as one process, the message once, not exit 3;
#  3. the same with --target-rate, where rank 0 alone holds the runs.
# Every job is bounded (timeout, and await_job); CTest bounds the whole.
# Usage: mpi_capacity_nothing_hangs_test.sh MPIEXEC PODSIM SOURCE_DIR
set -euo pipefail
mpiexec=$1
podsim=$2
src=$3
dir=$(mktemp -d)
job=
stopped=
cleanup() {
  [ -n "$stopped" ] && kill -CONT "$stopped" 2>"$dir/stderr.discarded"
  [ -n "$job" ] && kill_job
  rm -rf "$dir"
}
trap cleanup EXIT
. "$(dirname "$0")/../support/mpi_env.sh"
. "$(dirname "$0")/../support/mpi_job.sh"

fail() {
  echo "capacity mpi_nothing_hangs_test: $*" >&2
  for f in "$dir"/stderr.*; do [ -e "$f" ] && { echo "--- $f" >&2; tail -20 "$f" >&2; }; done
  exit 1
}

serve=$src/workloads/serve/llama3-70b-azure-conv.serve.textproto
run=(timeout -k 5 120 "$mpiexec" --oversubscribe -np 2 "$podsim" capacity)

# The shipped 8B Poisson file served for 12,000 s instead of 60, searched
# to 0.1%: about 15 runs of half a second each, 10 s of CPU, far longer
# than case 1 lets the job run.
long=$dir/long.serve.textproto
sed -e "s|\"../../topologies/|\"$src/topologies/|" \
    -e "s|workload: \"llama3-8b|workload: \"$src/workloads/serve/llama3-8b|" \
    -e "s|^duration_s: 60$|duration_s: 12000|" \
    "$src/workloads/serve/llama3-8b-poisson.serve.textproto" >"$long"
grep -q "^duration_s: 12000$" "$long" || fail "no 12000 s serve file"

# 1. Rank 1 stopped a second into the rate search.
"${run[@]}" "$long" --tolerance 0.001 --rank-timeout-seconds 3 \
  >"$dir/stdout.stop" 2>"$dir/stderr.stop" &
job=$!
rank1=$(await_rank 1)
sleep 1
kill -STOP "$rank1"
stopped=$rank1
t0=$(date +%s.%N)
await_job 60 "rank 1 stopped"
detect=$(seconds_since "$t0")
stopped=
[ "$rc" -eq 1 ] || fail "rank 1 stopped: exit $rc, expected 1"
grep -q "rank 0: rank 1 of 2 sent nothing" "$dir/stderr.stop" ||
  fail "rank 1 stopped: no message from rank 0 naming rank 1"
grep -q -- "--rank-timeout-seconds" "$dir/stderr.stop" || fail "rank 1 stopped: no option named"
echo "capacity mpi_nothing_hangs_test: stopped rank 1 detected, job ended ${detect} s after" \
  "SIGSTOP (--rank-timeout-seconds 3)"
awk -v d="$detect" 'BEGIN { exit !(d < 20) }' || fail "rank 1 stopped: took ${detect} s"

# 2. and 3. Serve runs past a limit.
limit() {
  local name=$1
  shift
  "${run[@]}" "$@" --max-events 1 >"$dir/stdout.$name" 2>"$dir/stderr.$name" &
  job=$!
  await_job 60 "$name"
  [ "$rc" -eq 1 ] || fail "$name: exit $rc, expected 1 (as one process)"
  [ "$(grep -c -- "(--max-events)" "$dir/stderr.$name")" -eq 1 ] ||
    fail "$name: the limit not reported exactly once"
  ! grep -q "internal error" "$dir/stderr.$name" || fail "$name: an internal error"
}
limit search "$serve"
limit target "$serve" "$src/workloads/serve/llama3-8b-poisson.serve.textproto" --target-rate 2
echo "capacity mpi_nothing_hangs_test: ok"
