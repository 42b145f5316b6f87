#!/usr/bin/env bash
# The nightly suite's outputs for CI systems (issue 12 point 7): on a small
# suite of its own, scripts/nightly-regression.sh writes a JUnit XML report
# and compare's JSON that parse (Python's xml and json modules), list every
# row, fail on the row whose value moved, and a per-column `tolerance` line
# of the suite lets exactly that move pass; a pattern naming no column fails.
# Usage: tests/regression/ci_outputs.sh PODSIM WORKDIR   (WORKDIR is recreated)
set -euo pipefail
podsim=${1:?usage: ci_outputs.sh PODSIM WORKDIR}
work=${2:?usage: ci_outputs.sh PODSIM WORKDIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
nightly=$root/scripts/nightly-regression.sh
rm -rf "$work"
mkdir -p "$work"
fail() {
  echo "ci_outputs: $*" >&2
  exit 1
}

suite=$work/suite.txt
cat >"$suite" <<SUITE
v5e-4x4.llama3-8b-decode   topologies/v5e-4x4.textproto  workloads/llama3-8b-decode-v5e.textproto  --network analytical
v5e-4x4.llama3-8b-prefill  topologies/v5e-4x4.textproto  workloads/llama3-8b-prefill-v5e.textproto  --network analytical
v5e-4x4.matmul-allreduce   topologies/v5e-4x4.textproto  workloads/matmul-allreduce-v5e-4x4.textproto
SUITE
run() {  # run EXPECTED_EXIT [ARGS...]
  local expected=$1 code=0
  shift
  "$nightly" --quiet --podsim "$podsim" --suite "$suite" --baselines "$work/baselines" "$@" \
    >"$work/out.txt" 2>&1 || code=$?
  [ "$code" = "$expected" ] || { cat "$work/out.txt" >&2; fail "exit $code, expected $expected ($*)"; }
}
check() {  # check JUNIT JSON FAILURES: both parse; the failures are the test cases named
  /usr/bin/python3 - "$@" <<'PY'
import json, sys, xml.etree.ElementTree as ET
junit, js, expected = sys.argv[1], sys.argv[2], sys.argv[3:]
root = ET.parse(junit).getroot()
assert root.tag == "testsuites", root.tag
suites = {s.get("name"): s for s in root.findall("testsuite")}
assert set(suites) == {"serving", "collectives"}, suites.keys()
cases = [c for s in suites.values() for c in s.findall("testcase")]
assert len(cases) == 2 + 3, len(cases)  # two serving rows, three operations
failed = sorted(c.get("name") for c in cases if c.find("failure") is not None)
assert failed == sorted(expected), (failed, expected)
for s in suites.values():
    assert int(s.get("tests")) == len(s.findall("testcase"))
    assert int(s.get("failures")) == sum(c.find("failure") is not None for c in s.findall("testcase"))
doc = json.load(open(js))
assert set(doc) == {"serving", "collectives"}, doc.keys()
assert doc["serving"]["ok"] == (not any("llama" in e for e in expected))
assert len(doc["serving"]["matched"]) == 2
PY
}

run 0 --update
run 0 --junit "$work/clean.xml" --json "$work/clean.json"
check "$work/clean.xml" "$work/clean.json"

# Move the decode step time by 1% in the baseline.
base=$work/baselines/serving.csv
col=$(head -n 1 "$base" | tr ',' '\n' | grep -nx 'serving.step_time_us' | cut -d: -f1)
[ -n "$col" ] || fail "no serving.step_time_us column"
awk -F, -v OFS=, -v c="$col" 'NR == 2 { $c = $c * 1.01 } { print }' "$base" >"$base.new"
mv "$base.new" "$base"
# The decode row's workload name as the label.
label_col=$(head -n 1 "$base" | tr ',' '\n' | grep -nx 'inputs.workload.name' | cut -d: -f1)
label=$(awk -F, -v c="$label_col" 'NR == 2 { print $c }' "$base")
run 1 --junit "$work/moved.xml" --json "$work/moved.json"
/usr/bin/python3 - "$work/moved.xml" "$label" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
failed = [c for c in root.iter("testcase") if c.find("failure") is not None]
assert len(failed) == 1, [c.get("name") for c in failed]
f = failed[0].find("failure")
assert f.get("type") == "moved", f.get("type")
assert "serving.step_time_us" in f.text, f.text
assert failed[0].get("name").startswith(sys.argv[2]), (failed[0].get("name"), sys.argv[2])
PY
grep -q '"ok": false' "$work/moved.json" || fail "the JSON does not say the comparison failed"

# A tolerance line for that column lets the 1% pass; others stay strict.
cp "$suite" "$suite.strict"
echo "tolerance  serving.step_time_us  0.02" >>"$suite"
run 0 --junit "$work/tolerated.xml" --json "$work/tolerated.json"
grep -q '"pattern": "serving.step_time_us"' "$work/tolerated.json" ||
  fail "the JSON does not record the column tolerance"
cp "$suite.strict" "$suite"
echo "tolerance  serving.tokens_per_s  0.5" >>"$suite"
run 1
# A pattern that names no column is refused, and no report is written.
cp "$suite.strict" "$suite"
echo "tolerance  serving.step_tme_us  0.02" >>"$suite"
run 2 --junit "$work/typo.xml"
[ ! -e "$work/typo.xml" ] || fail "a report was written for a refused suite"
grep -q "names no column" "$work/out.txt" || fail "no message for the typo: $(cat "$work/out.txt")"
ls "$work" | grep -q '\.tmp\.' && fail "a temporary file was left behind"
echo "ci_outputs: JUnit XML and JSON parse, fail on the moved row, and honour column tolerances"
rm -rf "$work"
