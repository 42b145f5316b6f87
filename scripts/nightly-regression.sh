#!/usr/bin/env bash
# The nightly regression suite. Runs every entry of tests/regression/suite.txt
# with `podsim run --format csv` and `--format json` (a `serve` entry with
# `podsim serve --summary-csv --summary-json`), gathers the CSV rows into one
# file per kind of result, each under one header:
#   serving.csv      one row per serving step (columns serving.*)
#   collectives.csv  one row per operation of an operation list (columns op_list.*)
#   serve.csv        one row per serve file (its summary, keyed by its name)
# and compares them with the committed baselines in tests/regression/baselines/
# using `podsim compare`. The JSON of each run goes to json/ID.json beside them
# (kept with --results; the determinism test compares it byte for byte).
# Builds nothing: it runs build/src/cli/podsim unless --podsim says otherwise.
# For CI systems it can also write a JUnit XML report (one test suite per kind,
# one test case per row) and compare's JSON summaries beside the table.
#
# Usage: scripts/nightly-regression.sh [--update] [--quiet] [--podsim PATH]
#            [--results DIR] [--run-only] [--rel-tol X] [--abs-tol-us Y]
#            [--junit FILE] [--json FILE] [--suite FILE] [--baselines DIR] [--no-serve]
#            [--match-by COLUMNS|suite] [--max-listed N]
#   --update        rewrite the baselines from this run, on purpose (review the diff)
#   --quiet         no progress on stderr (shown only when stderr is a terminal)
#   --podsim PATH   the podsim binary (default build/src/cli/podsim)
#   --results DIR   keep this run's CSV and JSON in DIR, which must be empty or
#                   new (default: a temporary directory, removed at the end)
#   --run-only      run the suite and compare nothing
#   --rel-tol X, --abs-tol-us Y   tolerances for podsim compare (its defaults otherwise)
#   --junit FILE    also write the comparison as JUnit XML (written whole, or not at all)
#   --json FILE     also write compare's JSON, {"KIND": {...}, ...} (docs/outputs.md)
#   --suite FILE    the suite (default tests/regression/suite.txt)
#   --baselines DIR the baselines (default tests/regression/baselines)
#   --no-serve      leave out the suite's serve entries and their baseline
#                   (the sanitizer build's CTest passes it: the serve examples
#                   run there through tests/fleet on the same files)
#   --match-by COLS pair rows by these columns (podsim compare --match-by),
#                   each kind by those of them its header has (a kind with
#                   none: by its whole key); `suite` pairs each suite entry
#                   with itself: its topology and workload files, network and
#                   compute models and operation name (a serve entry: its name).
#                   After an input changed on purpose, the pairs show what it moved.
#   --max-listed N  compare's table lists at most N moved values and N rows
#                   that appeared or disappeared, per kind (default 20; 0: all;
#                   --json and --junit have every one)
# Rows that appeared or disappeared are listed by the key columns that differ
# among them (the JSON, --json, has every row with its whole key).
# Per-column tolerances are lines of the suite file:
#   tolerance  PATTERN  REL  [ABS]
# (podsim compare --column-tol PATTERN=REL,ABS: a column, or a prefix ending
# in '*'; ABS in the column's own unit).
# Exit: 0 nothing moved; 1 a value moved beyond tolerance, or a row appeared or
# disappeared; 2 bad input (no podsim, a bad suite line, a run that failed,
# headers that differ, a missing baseline).
set -euo pipefail
cd "$(dirname "$0")/.."

suite=tests/regression/suite.txt
baselines=tests/regression/baselines
podsim=build/src/cli/podsim
update=0
quiet=0
run_only=0
no_serve=0
results=""
junit=""
json=""
compare_flags=()
tolerance_flags=()
match_by=""
max_listed=20
# --match-by suite: the columns that tell the suite's entries apart.
suite_identity=inputs.topology.file,inputs.workload.file,inputs.run.network,inputs.run.compute,op_list.operations.name,name

die() {
  echo "nightly-regression: $*" >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --update) update=1 ;;
    --quiet) quiet=1 ;;
    --run-only) run_only=1 ;;
    --no-serve) no_serve=1 ;;
    --podsim) podsim=${2:?--podsim needs a path}; shift ;;
    --results) results=${2:?--results needs a directory}; shift ;;
    --rel-tol|--abs-tol-us) compare_flags+=("$1" "${2:?$1 needs a value}"); shift ;;
    --junit) junit=${2:?--junit needs a file}; shift ;;
    --json) json=${2:?--json needs a file}; shift ;;
    --suite) suite=${2:?--suite needs a file}; shift ;;
    --baselines) baselines=${2:?--baselines needs a directory}; shift ;;
    --match-by) match_by=${2:?--match-by needs COLUMNS or suite}; shift ;;
    --max-listed) max_listed=${2:?--max-listed needs a number}; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
  shift
done
[ "$update" = 0 ] || [ "$no_serve" = 0 ] || die "--update rewrites every baseline: not with --no-serve"
[ "$match_by" != suite ] || match_by=$suite_identity
[[ "$max_listed" =~ ^[0-9]+$ ]] || die "--max-listed $max_listed: expected a number >= 0"
[ -x "$podsim" ] || die "no podsim at $podsim: build first (scripts/build.sh) or pass --podsim"
[ -r "$suite" ] || die "cannot read $suite"

if [ -n "$results" ]; then
  mkdir -p "$results"
  [ -z "$(ls -A "$results")" ] || die "--results $results is not empty"
  out=$results
else
  out=$(mktemp -d "${TMPDIR:-/tmp}/podsim-regression.XXXXXX")
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out/runs" "$out/json"

show_progress=0
if [ "$quiet" = 0 ] && [ -t 2 ]; then
  show_progress=1
fi
progress() {
  if [ "$show_progress" = 1 ]; then
    printf '\r\033[K%s' "$*" >&2
  fi
}

# Read the suite: ID TOPOLOGY WORKLOAD [FLAGS...], serve ID SERVE_FILE
# [FLAGS...], tolerance lines, '#' comments, blank lines.
ids=()
lines=()
line_no=0
while IFS= read -r line || [ -n "$line" ]; do
  line_no=$((line_no + 1))
  line=${line%%#*}
  [ -n "${line//[[:space:]]/}" ] || continue
  read -r id topology workload _ <<<"$line"
  if [ "$id" = tolerance ]; then
    read -r _ pattern rel abs extra_word <<<"$line"
    [ -n "${rel:-}" ] && [ -z "${extra_word:-}" ] ||
      die "$suite:$line_no: expected 'tolerance PATTERN REL [ABS]'"
    tolerance_flags+=(--column-tol "$pattern=$rel${abs:+,$abs}")
    continue
  fi
  if [ "$id" = serve ] && [ "$no_serve" = 1 ]; then
    continue
  fi
  if [ "$id" = serve ]; then
    # serve ID SERVE_FILE [FLAGS...]: the words shift by one.
    id=$topology
    [ -n "${workload:-}" ] || die "$suite:$line_no: expected serve ID SERVE_FILE [FLAGS...]"
    [ -r "$workload" ] || die "$suite:$line_no: no serve file $workload"
  else
    [ -n "${workload:-}" ] || die "$suite:$line_no: expected ID TOPOLOGY WORKLOAD [FLAGS...]"
    [ -r "$topology" ] || die "$suite:$line_no: no topology file $topology"
    [ -r "$workload" ] || die "$suite:$line_no: no workload file $workload"
  fi
  [[ "$id" =~ ^[A-Za-z0-9._-]+$ ]] || die "$suite:$line_no: ID '$id' may use only letters, digits, '.', '_', '-'"
  for seen in "${ids[@]+"${ids[@]}"}"; do
    [ "$seen" != "$id" ] || die "$suite:$line_no: ID '$id' appears twice"
  done
  ids+=("$id")
  lines+=("$line")
done <"$suite"
total=${#ids[@]}
[ "$total" -gt 0 ] || die "$suite lists no runs"

# Run each entry twice: CSV for the comparison, JSON for the record (a serve
# entry once, writing both).
for i in "${!ids[@]}"; do
  id=${ids[$i]}
  read -r first _ <<<"${lines[$i]}"
  if [ "$first" = serve ]; then
    read -r _ _ serve_file flags <<<"${lines[$i]}"
    read -ra extra <<<"${flags:-}"
    progress "[$((i + 1))/$total] $id (serve)"
    if ! "$podsim" serve "$serve_file" "${extra[@]+"${extra[@]}"}" --format csv \
        --summary-csv "$out/runs/$id.csv" --summary-json "$out/json/$id.json" \
        >"$out/stdout.txt" 2>"$out/stderr.txt"; then
      progress ""
      cat "$out/stderr.txt" >&2
      die "$id: podsim serve failed (suite line: ${lines[$i]})"
    fi
    continue
  fi
  read -r _ topology workload flags <<<"${lines[$i]}"
  read -ra extra <<<"${flags:-}"
  for format in csv json; do
    progress "[$((i + 1))/$total] $id ($format)"
    case $format in
      csv) file=$out/runs/$id.csv ;;
      json) file=$out/json/$id.json ;;
    esac
    if ! "$podsim" run --quiet --topology "$topology" --workload "$workload" \
        "${extra[@]+"${extra[@]}"}" --format "$format" --out "$file" 2>"$out/stderr.txt"; then
      progress ""
      cat "$out/stderr.txt" >&2
      die "$id: podsim run failed (suite line: ${lines[$i]})"
    fi
  done
done
progress ""

# Gather the rows under one header per kind; every run of a kind must have
# written the same header.
kind_of() {
  case "$1" in
    schema_version,*,serving.*) echo serving ;;
    schema_version,*,op_list.*) echo collectives ;;
    name,source_file,seed,*) echo serve ;;
    *) echo unknown ;;
  esac
}
kinds=()
for id in "${ids[@]}"; do
  csv=$out/runs/$id.csv
  header=$(head -n 1 "$csv")
  kind=$(kind_of "$header")
  [ "$kind" != unknown ] || die "$id: not a serving, collectives or serve summary CSV (header: $header)"
  if [ ! -e "$out/$kind.csv" ]; then
    printf '%s\n' "$header" >"$out/$kind.csv"
    kinds+=("$kind")
  elif [ "$header" != "$(head -n 1 "$out/$kind.csv")" ]; then
    die "$id: its CSV header differs from the other $kind runs'"
  fi
  tail -n +2 "$csv" >>"$out/$kind.csv"
done
rm -rf "$out/runs" "$out/stderr.txt" "$out/stdout.txt"

[ "$run_only" = 0 ] || exit 0

if [ "$update" = 1 ]; then
  # Refuse a suite whose rows compare is unable to match (a repeated key).
  for kind in "${kinds[@]}"; do
    "$podsim" compare "$out/$kind.csv" "$out/$kind.csv" >"$out/$kind.self-compare.txt" ||
      die "the suite's $kind rows cannot be compared; baselines left unchanged"
  done
  mkdir -p "$baselines"
  rm -f "$baselines"/*.csv
  for kind in "${kinds[@]}"; do
    cp "$out/$kind.csv" "$baselines/$kind.csv"
  done
  echo "nightly-regression: baselines rewritten from $total runs: $baselines/; review 'git diff $baselines'" >&2
  exit 0
fi

# Compare every kind present on either side; the worst exit code wins.
worst=0
for base in "$baselines"/*.csv; do
  [ -e "$base" ] || die "no baselines in $baselines: run with --update"
  kind=$(basename "$base" .csv)
  [ "$no_serve" = 0 ] || [ "$kind" != serve ] || continue
  # A kind the suite no longer produces: every baseline row disappeared.
  [ -e "$out/$kind.csv" ] || head -n 1 "$base" >"$out/$kind.csv"
done
for kind in "${kinds[@]}"; do
  [ -e "$baselines/$kind.csv" ] || die "no baseline $baselines/$kind.csv: run with --update"
done
# A tolerance pattern must name a column of every kind it is given to, so
# each pattern goes to the kinds whose header it matches (a pattern matching
# none of them is refused by compare on the first kind).
# Whether tolerance PATTERN names a column of the CSV file FILE's header.
pattern_in_header() {  # pattern_in_header PATTERN FILE
  local header
  header=,$(head -n 1 "$2"),
  if [[ "$1" == *'*' ]]; then
    [[ "$header" == *",${1%'*'}"* ]]
  else
    [[ "$header" == *",$1,"* ]]
  fi
}
flags_for() {
  local i column columns=""
  kind_flags=()
  for ((i = 1; i < ${#tolerance_flags[@]}; i += 2)); do
    if pattern_in_header "${tolerance_flags[$i]%=*}" "$1"; then
      kind_flags+=(--column-tol "${tolerance_flags[$i]}")
    fi
  done
  # The --match-by columns this kind's header has.
  if [ -n "$match_by" ]; then
    IFS=, read -ra columns_given <<<"$match_by"
    for column in "${columns_given[@]}"; do
      if pattern_in_header "$column" "$1"; then
        columns+=${columns:+,}$column
      fi
    done
    [ -z "$columns" ] || kind_flags+=(--match-by "$columns")
  fi
}
for ((i = 1; i < ${#tolerance_flags[@]}; i += 2)); do
  pattern=${tolerance_flags[$i]%=*}
  found=0
  for current in "$out"/*.csv; do
    if pattern_in_header "$pattern" "$current"; then
      found=1
    fi
  done
  [ "$found" = 1 ] || die "$suite: tolerance pattern '$pattern' names no column of any result"
done
if [ -n "$match_by" ]; then
  IFS=, read -ra columns_given <<<"$match_by"
  for column in "${columns_given[@]}"; do
    [ -n "$column" ] || die "--match-by $match_by: an empty column name"
    [[ "$column" != *'*' ]] || die "--match-by $match_by: names columns, not prefixes"
    found=0
    for current in "$out"/*.csv; do
      if pattern_in_header "$column" "$current"; then
        found=1
      fi
    done
    [ "$found" = 1 ] || die "--match-by: column '$column' is in no result's header"
  done
fi
for current in "$out"/*.csv; do
  kind=$(basename "$current" .csv)
  flags_for "$current"
  flags=("${compare_flags[@]+"${compare_flags[@]}"}" "${kind_flags[@]+"${kind_flags[@]}"}")
  echo "== $kind"
  code=0
  if [ -n "$junit" ]; then
    flags+=(--junit "$out/$kind.junit.xml" --junit-suite "$kind")
  fi
  "$podsim" compare "$baselines/$kind.csv" "$current" "${flags[@]}" --max-listed "$max_listed" ||
    code=$?
  [ "$code" -le "$worst" ] || worst=$code
  if [ "$code" -le 1 ] && [ -n "$json" ]; then
    "$podsim" compare "$baselines/$kind.csv" "$current" \
      "${compare_flags[@]+"${compare_flags[@]}"}" "${kind_flags[@]+"${kind_flags[@]}"}" --format json --out "$out/$kind.compare.json" || [ $? -le 1 ] ||
      die "$kind: podsim compare --format json failed"
  fi
done

# The CI outputs, each whole or not at all, only when every kind compared:
# written beside their destination, then renamed over it.
partial=()
trap 'rm -f "${partial[@]+"${partial[@]}"}"; [ -n "$results" ] || rm -rf "$out"' EXIT
if [ "$worst" -le 1 ] && [ -n "$junit" ]; then
  partial+=("$junit.tmp.$$")
  {
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo '<testsuites name="podsim nightly regression">'
    for current in "$out"/*.csv; do
      sed -n '/^<testsuite /,/^<\/testsuite>$/p' "$out/$(basename "$current" .csv).junit.xml"
    done
    echo '</testsuites>'
  } >"$junit.tmp.$$"
  mv -f "$junit.tmp.$$" "$junit"
fi
if [ "$worst" -le 1 ] && [ -n "$json" ]; then
  partial+=("$json.tmp.$$")
  {
    printf '{'
    sep=""
    for current in "$out"/*.csv; do
      kind=$(basename "$current" .csv)
      printf '%s\n"%s": ' "$sep" "$kind"
      cat "$out/$kind.compare.json"
      sep=","
    done
    printf '}\n'
  } >"$json.tmp.$$"
  mv -f "$json.tmp.$$" "$json"
fi
exit "$worst"
