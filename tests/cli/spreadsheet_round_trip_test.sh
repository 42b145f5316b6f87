#!/usr/bin/env bash
# A sweep's CSV through a spreadsheet and back compares clean (issue 32
# point 5): LibreOffice (Debian's libreoffice-calc-nogui) converts it to
# .xlsx and back to CSV, which rewrites its numbers (`1.97e+14` becomes
# `197000000000000`, 17 digits become 15); `podsim compare` must match every
# row and find nothing moved. Exits 77 (CTest's SKIP_RETURN_CODE) with a
# message when soffice is not installed. LibreOffice runs with a temporary
# HOME and profile, each conversion under a time limit.
# Usage: spreadsheet_round_trip_test.sh PODSIM SOURCE_DIR
set -uo pipefail
podsim=$1
src=$2
soffice=$(command -v soffice || command -v libreoffice || true)
if [ -z "$soffice" ]; then
  echo "SKIP: no soffice on PATH (install libreoffice-calc-nogui to run this test)"
  exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
# convert FORMAT FILE OUTDIR: one LibreOffice conversion, its own profile.
convert() {
  HOME=$dir/home timeout 180 "$soffice" --headless --norestore \
    "-env:UserInstallation=file://$dir/profile" --convert-to "$1" --outdir "$3" "$2" \
    >"$dir/soffice.log" 2>&1 || fail "soffice --convert-to $1 $2: $(tail -c 500 "$dir/soffice.log")"
  [ -s "$3/$(basename "${2%.*}").${1%%:*}" ] || fail "soffice wrote no $1 ($(cat "$dir/soffice.log"))"
}
mkdir -p "$dir/home" "$dir/xlsx" "$dir/back"
"$podsim" sweep "$src/workloads/sweeps/llama3-70b-decode-link-bandwidth-x-batch.textproto" \
  --jobs 1 --out "$dir/sweep.csv" >"$dir/sweep.log" 2>&1 || fail "podsim sweep: $(cat "$dir/sweep.log")"
convert xlsx "$dir/sweep.csv" "$dir/xlsx"
convert csv "$dir/xlsx/sweep.xlsx" "$dir/back"
# The spreadsheet did rewrite the key cells: otherwise this tests nothing.
grep -q '1\.97e+14' "$dir/sweep.csv" || fail "the sweep wrote no 1.97e+14 key cell"
grep -q '197000000000000' "$dir/back/sweep.csv" || fail "LibreOffice kept 1.97e+14 as written"
! cmp -s "$dir/sweep.csv" "$dir/back/sweep.csv" || fail "the round trip changed nothing"
"$podsim" compare "$dir/sweep.csv" "$dir/back/sweep.csv" >"$dir/compare.txt" 2>&1
code=$?
[ "$code" -eq 0 ] || fail "compare exit $code: $(head -c 2000 "$dir/compare.txt")"
grep -q "^OK: nothing moved (28 scenarios matched" "$dir/compare.txt" ||
  fail "unexpected summary: $(tail -n 1 "$dir/compare.txt")"
echo "spreadsheet round trip: $(tail -n 1 "$dir/compare.txt")"
