#!/usr/bin/env bash
# Runs podsim's libFuzzer targets (tests/fuzz/, docs/testing.md) built with
# AddressSanitizer + UndefinedBehaviorSanitizer in build-sanitize/
# (scripts/build-sanitize.sh; clang-14 and libclang-rt-14-dev from Debian).
#
#   scripts/fuzz.sh [--seconds N] [--jobs J] [--merge] [--quick] [--no-build] [TARGET...]
#
# Each target runs N seconds (default 20) on its committed corpus,
# tests/fuzz/corpus/TARGET/, plus its seeds (the shipped topologies,
# workloads and CSVs), with the dictionary tests/fuzz/podsim.dict
# (hlo_fuzzer: tests/fuzz/hlo.dict, HLO's keywords); new inputs
# go to build-sanitize/fuzz/TARGET/new/, never into the tree. J targets run
# at once (default 1). --merge then minimises the committed corpus, the new
# inputs and the seeds into tests/fuzz/corpus/TARGET/ (libFuzzer -merge=1:
# the fewest inputs that keep every feature), so the next run starts where
# this one stopped; commit the result. --quick (CI's pass, scripts/test.sh)
# sets PODSIM_FUZZ_QUICK=1: the targets that simulate (serving, sweeps)
# parse and check every input as always but simulate less of it (4 or 3
# requests of a serving run, the first point of a sweep), so that replaying
# their corpora fits CI's budget; it cannot be merged. Targets default to
# all ten, the slowest first.
#
# A crash, sanitizer report, escaped exception, leak, input slower than
# $PODSIM_FUZZ_TIMEOUT s (default 10) or over $PODSIM_FUZZ_RSS_MB MB
# (default 2048) stops that target and leaves the input in
# build-sanitize/fuzz/TARGET-crash-* (or -timeout-, -oom-, -leak-); the
# script then exits 1. Reproduce with: build-sanitize/tests/fuzz/TARGET FILE
set -euo pipefail
cd "$(dirname "$0")/.."
# The slowest to replay their corpus first (sweep, serve with traces, serve:
# 50 to 100 s under ASan before the first mutation), so they overlap the rest.
all_targets=(sweep_fuzzer serve_fuzzer serve_trace_fuzzer topology_fuzzer workload_fuzzer
             op_table_fuzzer compare_csv_fuzzer overrides_fuzzer trace_csv_fuzzer hlo_fuzzer)
seconds=20
jobs=1
merge=0
build=1
targets=()
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --merge) merge=1; shift ;;
    --quick) export PODSIM_FUZZ_QUICK=1; shift ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
if [ "$merge" = 1 ] && [ "${PODSIM_FUZZ_QUICK:-0}" = 1 ]; then
  echo "fuzz.sh: --merge with --quick (or PODSIM_FUZZ_QUICK=1) would keep the quick harnesses' features only" >&2
  exit 2
fi

dir=${PODSIM_SANITIZE_BUILD_DIR:-build-sanitize}
if [ "$build" = 1 ]; then
  scripts/build-sanitize.sh "${targets[@]}"
fi
out=$dir/fuzz
mkdir -p "$out"

# Seeds, read but never written; max_len reaches the text parser's nesting
# limit (100 levels, about 700 bytes) with room for the largest shipped input.
seeds_of() {
  case $1 in
    topology_fuzzer) echo topologies ;;
    workload_fuzzer) echo workloads ;;
    compare_csv_fuzzer) echo tests/regression/baselines tests/scripts/data ;;
    serve_fuzzer | trace_csv_fuzzer) echo workloads/serve ;;
    sweep_fuzzer) echo workloads/sweeps ;;
    hlo_fuzzer) echo tests/hlo/data ;;
    *) ;;
  esac
}
max_len_of() {
  case $1 in
    compare_csv_fuzzer) echo 16384 ;;
    overrides_fuzzer) echo 4096 ;;
    hlo_fuzzer) echo 16384 ;;
    *) echo 8192 ;;
  esac
}
# HLO text shares no words with the schema: its own dictionary.
dict_of() {
  case $1 in
    hlo_fuzzer) echo tests/fuzz/hlo.dict ;;
    *) echo tests/fuzz/podsim.dict ;;
  esac
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

run_one() {
  local t=$1
  local bin=$dir/tests/fuzz/$t corpus=tests/fuzz/corpus/$t new=$out/$t/new
  local seeds
  read -r -a seeds <<<"$(seeds_of "$t")"
  mkdir -p "$new" "$corpus"
  local flags=(-max_len="$(max_len_of "$t")" -dict="$(dict_of "$t")"
               -timeout="${PODSIM_FUZZ_TIMEOUT:-10}" -rss_limit_mb="${PODSIM_FUZZ_RSS_MB:-2048}"
               -artifact_prefix="$out/$t-" -print_final_stats=1)
  local rc=0
  "$bin" "${flags[@]}" -max_total_time="$seconds" "$new" "$corpus" "${seeds[@]}" \
    >"$out/$t.log" 2>&1 || rc=$?
  # libFuzzer's last status line and final stats: runs, speed, coverage.
  local done_line
  done_line=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' "$out/$t.log" | tail -1 || true)
  echo "$t: exit $rc; $done_line; $(grep -E 'stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$out/$t.log" | tr -s ' ' | tr '\n' ' ')"
  if [ "$rc" != 0 ]; then
    echo "$t: FAILED, see $out/$t.log:" >&2
    grep -E 'ERROR|==[0-9]+==|SUMMARY|Test unit written|uncaught|terminate' "$out/$t.log" | head -20 >&2
    return 1
  fi
  if [ "$merge" = 1 ]; then
    local merged=$out/$t/merged
    rm -rf "$merged" && mkdir -p "$merged"
    "$bin" "${flags[@]}" -merge=1 "$merged" "$corpus" "$new" "${seeds[@]}" >"$out/$t.merge.log" 2>&1
    find "$corpus" -type f -delete
    cp "$merged"/* "$corpus"/
    echo "$t: corpus minimised to $(find "$corpus" -type f | wc -l) files, $(du -sb "$corpus" | cut -f1) bytes"
  fi
}

# J at a time: the next target starts as soon as any one ends.
status=0
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
  run_one "$t" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done
exit $status
