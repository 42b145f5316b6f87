#!/usr/bin/env bash
# The benchmark script `podsim calibrate --emit-benchmark DIR` writes: it
# compiles; --dry-run writes the measurements CSV (exact header, a row of each
# kind) without JAX; an --out naming a directory is refused and nothing is
# left behind; and a real run where `import jax` fails says it needs JAX,
# exits 2 and writes nothing.
# Usage: benchmark_script_test.sh DIR/podsim_benchmark.py
set -euo pipefail
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
[ $# -eq 1 ] || fail "usage: $0 DIR/podsim_benchmark.py"
[ -f "$1" ] || fail "no script $1"
script=$(realpath "$1") # case (4) runs it from another directory
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
header='kind,chip,slice,wraparound,dtype,m,k,n,batch,collective,bytes,axes,measured_us,harness,source'

# (1) It compiles (the placeholders were replaced by Python literals).
# The bytecode goes to $tmp, not beside the script.
PYTHONPYCACHEPREFIX="$tmp/pycache" python3 -m py_compile "$script" 2>"$tmp/err" ||
  fail "py_compile: $(cat "$tmp/err")"

# (2) A dry run writes podsim's predictions, no JAX needed.
python3 "$script" --dry-run --out "$tmp/m.csv" >"$tmp/out" 2>"$tmp/err" ||
  fail "--dry-run exited $?: $(cat "$tmp/err")"
grep -qi "dry run" "$tmp/out" || fail "--dry-run did not say it is a dry run: $(cat "$tmp/out")"
[ "$(head -n 1 "$tmp/m.csv")" = "$header" ] || fail "header is '$(head -n 1 "$tmp/m.csv")'"
for kind in matmul collective hbm_copy; do
  grep -q "^$kind," "$tmp/m.csv" || fail "no $kind row in the dry run's CSV"
done
[ -z "$(find "$tmp" -name '.podsim_benchmark.*')" ] || fail "--dry-run left a temporary file"

# (3) --out naming a directory: refused, nothing left in it.
mkdir "$tmp/dir"
if python3 "$script" --dry-run --out "$tmp/dir" >"$tmp/out" 2>"$tmp/err"; then
  fail "--out naming a directory exited 0"
fi
grep -q "is a directory" "$tmp/err" || fail "--out naming a directory said: $(cat "$tmp/err")"
[ -z "$(ls -A "$tmp/dir")" ] || fail "--out naming a directory left $(ls -A "$tmp/dir")"
[ -z "$(find "$tmp" -name '.podsim_benchmark.*')" ] || fail "--out naming a directory left a temporary file"

# (4) A real run without JAX: a stand-in jax package that fails to import
# comes first on the path, whether or not the machine has JAX.
mkdir -p "$tmp/nojax/jax" "$tmp/run"
echo 'raise ImportError("No module named jax (test stand-in)")' >"$tmp/nojax/jax/__init__.py"
code=0
(cd "$tmp/run" && PYTHONPATH="$tmp/nojax" python3 "$script" --out x.csv) >"$tmp/out" 2>"$tmp/err" ||
  code=$?
[ "$code" -eq 2 ] || fail "a real run without JAX exited $code, expected 2: $(cat "$tmp/err")"
grep -q "needs JAX" "$tmp/err" || fail "a real run without JAX said: $(cat "$tmp/err")"
[ -z "$(ls -A "$tmp/run")" ] || fail "a real run without JAX left $(ls -A "$tmp/run")"

echo "benchmark_script_test: all passed"
