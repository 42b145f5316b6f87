# Sourced by the MPI tests that stop a rank or wait for a job to end
# (issue 27): finds a rank's pid and bounds every wait. The caller sets
# `job` to the pid of the launcher it started in the background and `dir`
# to its temporary directory (the messages of a kill or a read that may
# race with a process's exit go to its file stderr.discarded, which the
# tests' leftover checks ignore as they do every stderr.*), and defines fail().

# Every process below $1 (mpirun's children and theirs).
descendants() {
  local p
  for p in $(pgrep -P "$1" || true); do
    echo "$p"
    descendants "$p"
  done
}

# The pid of the job's rank $1, from its environment (Open MPI sets
# OMPI_COMM_WORLD_RANK); fails while it has not started.
rank_pid() {
  local p
  for p in $(descendants "$job"); do
    if tr '\0' '\n' <"/proc/$p/environ" 2>"$dir/stderr.discarded" | grep -qx "OMPI_COMM_WORLD_RANK=$1"; then
      echo "$p"
      return 0
    fi
  done
  return 1
}

# Waits up to 30 s for rank $1 to start; prints its pid.
await_rank() {
  local pid
  for _ in $(seq 300); do
    pid=$(rank_pid "$1") && { echo "$pid"; return 0; }
    sleep 0.1
  done
  fail "rank $1 never started"
}

# Kills the job and every process below it (a killed mpirun leaves its
# ranks running), for a test's exit trap.
kill_job() {
  local pids
  pids=$(descendants "$job")
  kill -KILL "$job" $pids 2>"$dir/stderr.discarded"
  wait "$job" 2>"$dir/stderr.discarded"
  return 0
}

# Waits up to $1 s for the job to end; fails the test ($2 names the case)
# if it does not. Sets rc to its exit status.
await_job() {
  local tenths=$(($1 * 10))
  for _ in $(seq "$tenths"); do
    kill -0 "$job" 2>"$dir/stderr.discarded" || break
    sleep 0.1
  done
  kill -0 "$job" 2>"$dir/stderr.discarded" && fail "$2: the job still runs after $1 s (it hangs)"
  rc=0
  wait "$job" || rc=$?
  job=
}

cpu_ticks() {  # user + system time of process $1, in clock ticks
  awk '{print $14 + $15}' "/proc/$1/stat"
}

seconds_since() {  # wall seconds since $1 (date +%s.%N), one decimal
  awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
}
