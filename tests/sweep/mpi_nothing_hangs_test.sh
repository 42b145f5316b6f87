#!/usr/bin/env bash
# Issue 27, "nothing lost, nothing hangs", under a real `mpirun -np 2`:
#  1. a rank stopped with SIGSTOP is detected: rank 0 waits without spinning
#     a core, then the job exits 1 within --rank-timeout-seconds, naming the
#     rank, and leaves no output and no temporary file;
#  2. --max-wall-seconds bounds the whole sweep (exit 1, no output);
#  3. no signal mpirun sends or forwards (TERM, INT, HUP, USR1, USR2) leaves
#     a temporary of rank 0's output behind (it has no name: O_TMPFILE);
#  4. a sweep whose every point is invalid prints nothing on stdout (exit 2);
#  5. a point far longer than the rank timeout is not a silent rank: its
#     rank's heartbeats keep rank 0 waiting;
#  6. a rank stopped after its last result (waiting for the job's end) is
#     named, not a hang in MPI_Finalize; the output, complete, is kept;
#  7. rank 1 waiting for the end of the job while rank 0 computes a point
#     longer than the rank timeout is not taken for a stopped rank 0;
#  8. a stopped rank 0 is detected by rank 1.
# Every wait is bounded; a job that outlives its bound fails the test.
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
  echo "mpi_nothing_hangs_test: $*" >&2
  for f in "$dir"/stderr.*; do [ -e "$f" ] && { echo "--- $f" >&2; tail -20 "$f" >&2; }; done
  exit 1
}

# 64,000 cheap points (analytical network): about a minute of work, far
# longer than any case below lets the job run.
sweep=$dir/big.textproto
cat >"$sweep" <<EOT
name: "big"
topology: "$src/topologies/v5e-4x4.textproto"
workload: "$src/workloads/llama3-8b-decode-v5e.textproto"
network: "analytical"
parameters { path: "workload.scenario.batch" linear { start: 16 stop: 1024 step: 16 } }
parameters { path: "topology.torus.dims[0].link_bandwidth_gbps" linear { start: 1 stop: 1000 step: 1 } }
EOT

# Waits up to 30 s for rank 0 to hold its output open: a file in $dir
# without a name ("$dir/#INODE (deleted)", O_TMPFILE), or the named
# temporary of a file system without O_TMPFILE.
await_output() {
  local pid fd target
  for _ in $(seq 300); do
    if pid=$(rank_pid 0); then
      for fd in /proc/"$pid"/fd/*; do
        target=$(readlink "$fd" 2>"$dir/stderr.discarded") || continue
        case $target in "$dir/#"* | "$dir/.out.csv.tmp."*) return 0 ;; esac
      done
    fi
    sleep 0.1
  done
  fail "rank 0 had no output open after 30 s"
}

# Waits up to 60 s for process $1 to stop using the CPU (under 0.1 of a
# core over half a second): a rank done with its points, waiting.
await_idle() {
  local a b
  for _ in $(seq 120); do
    a=$(cpu_ticks "$1")
    sleep 0.5
    b=$(cpu_ticks "$1")
    [ $((b - a)) -le $(($(getconf CLK_TCK) / 20)) ] && return 0
  done
  fail "process $1 still busy after 60 s"
}

no_leftovers() {
  local left
  left=$(ls -A "$dir" | grep -v -e '^big.textproto$' -e '^stderr\.' -e '^stdout\.' -e '^typo' -e '^long' || true)
  [ -z "$left" ] || fail "$1: left behind: $left"
}

# 1. A stopped rank.
"$mpiexec" --oversubscribe -np 2 "$podsim" sweep "$sweep" --quiet --rank-timeout-seconds 3 \
  --out "$dir/out.csv" >"$dir/stdout.stop" 2>"$dir/stderr.stop" &
job=$!
await_output
rank1=
for _ in $(seq 300); do rank1=$(rank_pid 1) && break; sleep 0.1; done
[ -n "$rank1" ] || fail "stopped rank: rank 1 never started"
rank0=$(rank_pid 0) || fail "stopped rank: no rank 0"
sleep 1
kill -STOP "$rank1"
stopped=$rank1
t0=$(date +%s.%N)
sleep 0.5
ticks0=$(cpu_ticks "$rank0")
sleep 1.5
ticks1=$(cpu_ticks "$rank0")
hz=$(getconf CLK_TCK)
await_job 60 "stopped rank"
t1=$(date +%s.%N)
stopped=
grep -q "rank 1 of 2 sent nothing" "$dir/stderr.stop" ||
  fail "stopped rank: no message naming rank 1"
grep -q -- "--rank-timeout-seconds" "$dir/stderr.stop" || fail "stopped rank: no option named"
[ "$rc" -eq 1 ] || fail "stopped rank: exit $rc, expected 1"
[ ! -e "$dir/out.csv" ] || fail "stopped rank: a partial out.csv"
no_leftovers "stopped rank"
detect=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
# Rank 0 sleeps while it waits: well under half a core over the 1.5 s.
cpu=$(awk -v a="$ticks0" -v b="$ticks1" -v hz="$hz" 'BEGIN { printf "%.2f", (b - a) / hz / 1.5 }')
echo "mpi_nothing_hangs_test: stopped rank 1 detected, job ended ${detect} s after SIGSTOP" \
  "(--rank-timeout-seconds 3); rank 0 used ${cpu} of a core while waiting"
awk -v c="$cpu" 'BEGIN { exit !(c < 0.3) }' || fail "stopped rank: rank 0 spun at $cpu of a core"
awk -v d="$detect" 'BEGIN { exit !(d < 20) }' || fail "stopped rank: took ${detect} s"

# 2. The whole sweep's wall time.
t0=$(date +%s.%N)
"$mpiexec" --oversubscribe -np 2 "$podsim" sweep "$sweep" --quiet --max-wall-seconds 2 \
  --out "$dir/out.csv" >"$dir/stdout.wall" 2>"$dir/stderr.wall" &
job=$!
await_job 60 "wall time"
t1=$(date +%s.%N)
[ "$rc" -eq 1 ] || fail "wall time: exit $rc, expected 1"
grep -q -- "--max-wall-seconds bounds the whole sweep" "$dir/stderr.wall" ||
  fail "wall time: no message naming the limit"
[ ! -e "$dir/out.csv" ] || fail "wall time: a partial out.csv"
no_leftovers "wall time"
echo "mpi_nothing_hangs_test: --max-wall-seconds 2 ended the 2-rank sweep after" \
  "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"

# 3. Signals sent to mpirun. mpirun forwards them, then sends SIGKILL a
# moment later: only a temporary without a name is sure to go.
for sig in TERM INT HUP USR1 USR2; do
  "$mpiexec" --oversubscribe -np 2 "$podsim" sweep "$sweep" --quiet \
    --out "$dir/out.csv" >"$dir/stdout.$sig" 2>"$dir/stderr.$sig" &
  job=$!
  await_output
  sleep 0.5
  kill -s "$sig" "$job"
  await_job 60 "SIG$sig"
  [ "$rc" -ne 0 ] || fail "SIG$sig: the job exited 0"
  [ ! -e "$dir/out.csv" ] || fail "SIG$sig: a partial out.csv"
  no_leftovers "SIG$sig"
done
echo "mpi_nothing_hangs_test: SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2 to mpirun leave no temporary"

# 4. Every point invalid, no --out: nothing on stdout.
cat >"$dir/typo.textproto" <<EOT
topology: "$src/topologies/v5e-4x4.textproto"
workload: "$src/workloads/llama3-8b-decode-v5e.textproto"
parameters { path: "workload.scenario.bach" values: ["1", "2", "3", "4"] }
EOT
"$mpiexec" --oversubscribe -np 2 "$podsim" sweep "$dir/typo.textproto" --quiet \
  >"$dir/stdout.typo" 2>"$dir/stderr.typo" &
job=$!
await_job 60 "all invalid"
[ "$rc" -eq 2 ] || fail "all invalid: exit $rc, expected 2"
[ ! -s "$dir/stdout.typo" ] || fail "all invalid: rows on stdout"

# 5. Rank 1's point (the packet network: about 2.4 s) is many times the rank
# timeout (0.5 s); rank 0's (analytical) is quick, so rank 0 waits for it.
cat >"$dir/long.textproto" <<EOT
topology: "$src/topologies/v5e-4x4.textproto"
workload: "$src/workloads/llama3-8b-prefill-v5e.textproto"
parameters { path: "network" values: ["analytical", "packet"] }
EOT
"$mpiexec" --oversubscribe -np 2 "$podsim" sweep "$dir/long.textproto" --quiet \
  --rank-timeout-seconds 0.5 >"$dir/stdout.long" 2>"$dir/stderr.long" &
job=$!
await_job 120 "long point"
[ "$rc" -eq 0 ] || fail "long point: exit $rc, expected 0 (heartbeats lost?)"
[ "$(wc -l <"$dir/stdout.long")" -eq 3 ] || fail "long point: not a header and 2 rows"

# 6. and 7. Rank 0's point is long (about 3 s of all-reduces, however fast
# this build: timed on 10,000 first, so a sanitizer build costs no more);
# rank 1's (one all-reduce) is done at once, and rank 1 then waits for the
# end of the job.
long_ar() {  # a workload of $1 all-reduces
  cat <<EOT
name: "long_ar"
mesh {
  axes { name: "x" dims: "x" }
  axes { name: "y" dims: "y" }
}
operations {
  name: "sum"
  repeat: $1
  collective { kind: ALL_REDUCE bytes: 1048576 axes: ["x"] dtype: BF16 }
}
EOT
}
long_ar 10000 >"$dir/long_ar.textproto"
t0=$(date +%s.%N)
"$podsim" run -t "$src/topologies/v5e-4x4.textproto" -w "$dir/long_ar.textproto" \
  >"$dir/stdout.calibrate" ||
  fail "10,000 all-reduces do not run"
repeats=$(awk -v t="$(seconds_since "$t0")" \
  'BEGIN { r = int(10000 * 3 / (t > 0.01 ? t : 0.01)); print (r < 10000 ? 10000 : r) }')
cat >"$dir/long_ar_sweep.textproto" <<EOT
topology: "$src/topologies/v5e-4x4.textproto"
workload: "$dir/long_ar.textproto"
parameters { path: "workload.operations[0].repeat" values: ["$repeats", "1"] }
EOT
# 6. Rank 1 stopped once it is done: rank 0 writes the whole output, then
# names rank 1 when it does not answer the end of the job.
"$mpiexec" --oversubscribe -np 2 "$podsim" sweep "$dir/long_ar_sweep.textproto" --quiet \
  --rank-timeout-seconds 2 --out "$dir/out.csv" >"$dir/stdout.last" 2>"$dir/stderr.last" &
job=$!
rank1=$(await_rank 1)
await_idle "$rank1"
kill -STOP "$rank1"
stopped=$rank1
await_job 120 "stopped after its last result"
stopped=
[ "$rc" -eq 1 ] || fail "stopped after its last result: exit $rc, expected 1"
grep -q "rank 1 of 2 sent nothing .* while rank 0 waited for it to end the job" \
  "$dir/stderr.last" || fail "stopped after its last result: no message naming rank 1"
grep -q "the outputs rank 0 wrote are complete" "$dir/stderr.last" ||
  fail "stopped after its last result: the message does not say the output is whole"
! grep -q "No result was written" "$dir/stderr.last" ||
  fail "stopped after its last result: says no result was written, but out.csv is whole"
[ "$(wc -l <"$dir/out.csv")" -eq 3 ] ||
  fail "stopped after its last result: out.csv is not a header and 2 rows"
rm "$dir/out.csv"
no_leftovers "stopped after its last result"
echo "mpi_nothing_hangs_test: rank 1 stopped after its last result is named; the output is whole"

# 7. The same, nobody stopped, with a rank timeout shorter than rank 0's
# point: rank 0's heartbeats keep rank 1 waiting.
"$mpiexec" --oversubscribe -np 2 "$podsim" sweep "$dir/long_ar_sweep.textproto" --quiet \
  --rank-timeout-seconds 0.5 >"$dir/stdout.root" 2>"$dir/stderr.root" &
job=$!
await_job 120 "long point of rank 0"
[ "$rc" -eq 0 ] || fail "long point of rank 0: exit $rc, expected 0 (heartbeats lost?)"
[ "$(wc -l <"$dir/stdout.root")" -eq 3 ] || fail "long point of rank 0: not a header and 2 rows"

# 8. Rank 0 stopped: rank 1, computing its share, names it.
"$mpiexec" --oversubscribe -np 2 "$podsim" sweep "$sweep" --quiet --rank-timeout-seconds 3 \
  --out "$dir/out.csv" >"$dir/stdout.root0" 2>"$dir/stderr.root0" &
job=$!
await_output
rank0=$(rank_pid 0) || fail "stopped rank 0: no rank 0"
sleep 1
kill -STOP "$rank0"
stopped=$rank0
t0=$(date +%s.%N)
await_job 60 "stopped rank 0"
stopped=
[ "$rc" -eq 1 ] || fail "stopped rank 0: exit $rc, expected 1"
grep -q "rank 1: rank 0 of 2 sent nothing" "$dir/stderr.root0" ||
  fail "stopped rank 0: no message from rank 1 naming rank 0"
[ ! -e "$dir/out.csv" ] || fail "stopped rank 0: a partial out.csv"
no_leftovers "stopped rank 0"
echo "mpi_nothing_hangs_test: stopped rank 0 detected by rank 1, job ended" \
  "$(seconds_since "$t0") s after SIGSTOP (--rank-timeout-seconds 3)"
echo "mpi_nothing_hangs_test: ok"
