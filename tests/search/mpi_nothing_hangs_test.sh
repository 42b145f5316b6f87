#!/usr/bin/env bash
# Issue 27 for `podsim search` under a real `mpirun -np 2`:
#  1. rank 1 stopped with SIGSTOP: rank 0 waits without spinning a core,
#     then the job exits 1 within --rank-timeout-seconds, naming rank 1, and
#     writes no --out file;
#  2. rank 0 stopped: rank 1, waiting for a round's merged results
#     (broadcast), gives it up the same way, naming rank 0;
#  3. an evaluation past --max-events on one rank ends the job at once with
#     one process's exit code (1, not 3) and the message, naming the rank;
#  4. a missing --model, seen by every rank: exit 2, reported once.
# Every job is bounded (timeout, and await_job); CTest bounds the whole.
# Usage: mpi_nothing_hangs_test.sh MPIEXEC PODSIM SOURCE_DIR
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
  echo "search mpi_nothing_hangs_test: $*" >&2
  for f in "$dir"/stderr.*; do [ -e "$f" ] && { echo "--- $f" >&2; tail -20 "$f" >&2; }; done
  exit 1
}

# Every sharding of the model on a 4x4 and an 8x16 slice, 2013
# configurations each simulated on flow (no pruning): 25 s of CPU, far
# longer than any case below lets the job run, in evaluations of well under
# a second each, so a rank waits for another often.
args=(search --model "$src/workloads/llama3-8b-decode-v5e.textproto"
      --topology "$src/topologies/v5e-4x4.textproto" "$src/topologies/v5e-8x16.textproto"
      --phase decode --context 1024 --no-prune --quiet)
run=(timeout -k 5 120 "$mpiexec" --oversubscribe -np 2 "$podsim" "${args[@]}")

# Stops rank $1 of a job with --rank-timeout-seconds 3 a second into its
# run; checks the job then ends with exit 1 naming it, reported by rank $2.
stop_rank() {
  local victim=$1 reporter=$2 pid other t0 ticks0 ticks1 cpu detect
  "${run[@]}" --rank-timeout-seconds 3 --out "$dir/out.csv" \
    >"$dir/stdout.stop$victim" 2>"$dir/stderr.stop$victim" &
  job=$!
  pid=$(await_rank "$victim")
  other=$(await_rank "$reporter")
  sleep 1
  kill -STOP "$pid"
  stopped=$pid
  t0=$(date +%s.%N)
  sleep 0.5
  ticks0=$(cpu_ticks "$other")
  sleep 1.5
  ticks1=$(cpu_ticks "$other")
  await_job 60 "rank $victim stopped"
  detect=$(seconds_since "$t0")
  stopped=
  local err=$dir/stderr.stop$victim
  [ "$rc" -eq 1 ] || fail "rank $victim stopped: exit $rc, expected 1"
  grep -q "rank $reporter: rank $victim of 2 sent nothing" "$err" ||
    fail "rank $victim stopped: no message from rank $reporter naming rank $victim"
  grep -q -- "--rank-timeout-seconds" "$err" || fail "rank $victim stopped: no option named"
  [ ! -e "$dir/out.csv" ] || fail "rank $victim stopped: an out.csv"
  [ -z "$(ls -A "$dir" | grep -v -e '^stderr\.' -e '^stdout\.')" ] ||
    fail "rank $victim stopped: left behind: $(ls -A "$dir")"
  # It sleeps while it waits: well under half a core over the 1.5 s (it
  # may finish an evaluation of its own first).
  cpu=$(awk -v a="$ticks0" -v b="$ticks1" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { printf "%.2f", (b - a) / hz / 1.5 }')
  echo "search mpi_nothing_hangs_test: stopped rank $victim detected by rank $reporter," \
    "job ended ${detect} s after SIGSTOP (--rank-timeout-seconds 3); rank $reporter used" \
    "${cpu} of a core meanwhile"
  awk -v d="$detect" 'BEGIN { exit !(d < 20) }' || fail "rank $victim stopped: took ${detect} s"
  # Rank 0's own evaluations ahead (4 with --jobs 1) take well under the
  # 0.5 s before the count; rank 1 may still compute its share when rank 0
  # stops, so only rank 0's sleep is checked.
  if [ "$reporter" -eq 0 ]; then
    awk -v c="$cpu" 'BEGIN { exit !(c < 0.3) }' || fail "rank 0 spun at $cpu of a core"
  fi
}

# 1. Rank 1 stopped: rank 0 waits for its evaluations.
stop_rank 1 0
# 2. Rank 0 stopped: rank 1 waits for the round's merged results.
stop_rank 0 1

# 3. Every analytical evaluation is past --max-events 1.
"${run[@]}" --max-events 1 >"$dir/stdout.events" 2>"$dir/stderr.events" &
job=$!
await_job 60 "--max-events 1"
[ "$rc" -eq 1 ] || fail "--max-events 1: exit $rc, expected 1 (as one process)"
grep -q "podsim: rank [01]: .*(--max-events)" "$dir/stderr.events" ||
  fail "--max-events 1: no message naming the rank and the limit"
! grep -q "internal error" "$dir/stderr.events" || fail "--max-events 1: an internal error"
[ ! -s "$dir/stdout.events" ] || fail "--max-events 1: a frontier on stdout"

# 4. A missing model: every rank's input error, reported by rank 0 once.
timeout -k 5 120 "$mpiexec" --oversubscribe -np 2 "$podsim" search --model "$dir/none.textproto" \
  --topology "$src/topologies/v5e-2x2.textproto" --phase decode --context 1024 --quiet \
  >"$dir/stdout.missing" 2>"$dir/stderr.missing" &
job=$!
await_job 60 "missing model"
[ "$rc" -eq 2 ] || fail "missing model: exit $rc, expected 2"
[ "$(grep -c "none.textproto" "$dir/stderr.missing")" -eq 1 ] ||
  fail "missing model: not reported exactly once"
echo "search mpi_nothing_hangs_test: ok"
