#!/usr/bin/env bash
# The real binary against outputs that are not plain files (issue 27): a
# device or FIFO is written in place and stays what it was, a symbolic link
# is followed, an open descriptor's name (/dev/stdout) is written through, a
# rewritten file keeps its mode and hard links, a directory or read-only file
# system is refused, an output naming a file an input names is refused, and
# a write error on stdout exits 2 for every command. Device nodes are made here with mknod (root only; skipped
# otherwise): the machine's own /dev/null is never an output of this test.
# Usage: hostile_outputs_test.sh PODSIM SOURCE_DIR
set -uo pipefail
podsim=$1
src=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
# expect CODE CMD...: runs CMD, its stderr kept in $dir/err.
expect() {
  local want=$1
  shift
  "$@" 2>"$dir/err"
  local got=$?
  [ "$got" -eq "$want" ] || fail "exit $got, expected $want: $* ($(head -c 300 "$dir/err"))"
}
topo=$src/topologies/v5e-2x2.textproto
"$podsim" topo "$topo" --format csv >"$dir/expected.csv" || fail "topo to stdout"

# A character device of our own: written in place, never replaced.
if mknod "$dir/null" c 1 3 2>"$dir/mknod.err"; then
  expect 0 "$podsim" topo "$topo" --out "$dir/null"
  [ -c "$dir/null" ] || fail "--out onto a character device replaced it"
  expect 0 "$podsim" run -w "$src/workloads/matmuls-v5e-4x4.textproto" \
    -t "$src/topologies/v5e-4x4.textproto" --out "$dir/null" --trace "$dir/null"
  [ -c "$dir/null" ] || fail "--out and --trace onto one character device replaced it"
  mknod "$dir/full" c 1 7
  expect 2 "$podsim" topo "$topo" --out "$dir/full"
  grep -q "cannot write output" "$dir/err" || fail "--out onto a full device: $(cat "$dir/err")"
  # stdout onto a full device: every command says so and exits 2.
  for cmd in "--help" "--version" "topo $topo" "validate $topo" "topo --help" \
    "run -w $src/workloads/matmuls-v5e-4x4.textproto -t $src/topologies/v5e-4x4.textproto" \
    "compare $dir/expected.csv $dir/expected.csv" \
    "serve $src/workloads/serve/llama3-8b-poisson.serve.textproto"; do
    # shellcheck disable=SC2086
    "$podsim" $cmd >"$dir/full" 2>"$dir/err"
    code=$?
    [ "$code" -eq 2 ] || fail "'podsim $cmd > full device' exited $code, expected 2"
    grep -q "cannot write output" "$dir/err" || fail "'podsim $cmd > full': $(head -c 300 "$dir/err")"
  done
else
  echo "hostile_outputs_test: mknod refused (not root?): device cases skipped"
fi

# A FIFO: its reader gets the output; the FIFO stays a FIFO.
mkfifo "$dir/fifo"
cat "$dir/fifo" >"$dir/from_fifo.csv" &
reader=$!
expect 0 "$podsim" topo "$topo" --format csv --out "$dir/fifo"
wait "$reader"
[ -p "$dir/fifo" ] || fail "--out onto a FIFO replaced it"
cmp -s "$dir/expected.csv" "$dir/from_fifo.csv" || fail "the FIFO's reader got other bytes"

# A symbolic link, dangling or not: followed; the link stays a link.
mkdir "$dir/real"
echo old >"$dir/real/topo.csv"
ln -s real/topo.csv "$dir/link.csv"
ln -s real/new.csv "$dir/dangling.csv"
expect 0 "$podsim" topo "$topo" --format csv --out "$dir/link.csv"
expect 0 "$podsim" topo "$topo" --format csv --out "$dir/dangling.csv"
[ -L "$dir/link.csv" ] && [ -L "$dir/dangling.csv" ] || fail "--out replaced a symbolic link"
cmp -s "$dir/expected.csv" "$dir/real/topo.csv" || fail "the link's file was not written"
cmp -s "$dir/expected.csv" "$dir/real/new.csv" || fail "the dangling link's file was not made"

# An open descriptor's name: through it, appending as `>>` asked.
ln -s /proc/self/fd/1 "$dir/stdout"
echo first >"$dir/appended.csv"
"$podsim" topo "$topo" --format csv --out "$dir/stdout" >>"$dir/appended.csv" 2>"$dir/err" ||
  fail "--out through /proc/self/fd/1: $(cat "$dir/err")"
{ echo first; cat "$dir/expected.csv"; } | cmp -s - "$dir/appended.csv" ||
  fail "--out /dev/stdout under >> did not append"
[ -L "$dir/stdout" ] || fail "--out replaced the /proc/self/fd/1 link"

# A rewritten file keeps its mode and its hard links.
echo old >"$dir/private.csv"
chmod 600 "$dir/private.csv"
ln "$dir/private.csv" "$dir/hardlink.csv"
expect 0 "$podsim" topo "$topo" --format csv --out "$dir/private.csv"
[ "$(stat -c %a "$dir/private.csv")" = 600 ] || fail "mode widened to $(stat -c %a "$dir/private.csv")"
cmp -s "$dir/expected.csv" "$dir/hardlink.csv" || fail "the hard link kept the old contents"

# A directory in the way: exit 2, nothing written.
mkdir "$dir/adir"
expect 2 "$podsim" topo "$topo" --out "$dir/adir"
[ -d "$dir/adir" ] || fail "--out replaced a directory"
# A read-only file system (procfs refuses a new file even to root): exit 2,
# the file as it was.
if [ -f /proc/version ]; then
  before=$(cat /proc/version)
  expect 2 "$podsim" topo "$topo" --out /proc/version
  grep -q "cannot write output" "$dir/err" || fail "read-only: $(cat "$dir/err")"
  [ "$before" = "$(cat /proc/version)" ] || fail "/proc/version changed"
fi

# Outputs onto files an input names, through the files that name them.
cp -r "$src/workloads/serve" "$dir/serve"
cp "$src/topologies/v5e-2x2.textproto" "$src/topologies/v5e-4x4.textproto" "$dir/serve/"
sed -i 's#\.\./\.\./topologies/#./#' "$dir/serve/"*.serve.textproto
before=$(sha256sum "$dir/serve/llama3-8b-v5e-2x2.textproto")
expect 2 "$podsim" serve "$dir/serve/llama3-8b-poisson.serve.textproto" \
  --requests "$dir/serve/llama3-8b-v5e-2x2.textproto"
[ "$before" = "$(sha256sum "$dir/serve/llama3-8b-v5e-2x2.textproto")" ] ||
  fail "serve --requests overwrote a replica's workload"
before=$(sha256sum "$dir/serve/azure-conv-300.csv")
expect 2 "$podsim" serve "$dir/serve/llama3-70b-azure-conv.serve.textproto" \
  --summary-csv "$dir/serve/azure-conv-300.csv"
[ "$before" = "$(sha256sum "$dir/serve/azure-conv-300.csv")" ] ||
  fail "serve --summary-csv overwrote the arrival trace"
mkdir "$dir/sweeps"
cp "$src/topologies/v5e-4x4.textproto" "$dir/sweeps/base.textproto"
printf 'name: "clash"\ntopology: "base.textproto"\nworkload: "%s"\n' \
  "$src/workloads/matmuls-v5e-4x4.textproto" >"$dir/sweeps/clash.textproto"
before=$(sha256sum "$dir/sweeps/base.textproto")
expect 2 "$podsim" sweep "$dir/sweeps/clash.textproto" --out "$dir/sweeps/base.textproto"
[ "$before" = "$(sha256sum "$dir/sweeps/base.textproto")" ] ||
  fail "sweep --out overwrote the sweep's base topology"

if [ "$failures" -ne 0 ]; then
  echo "hostile_outputs_test: $failures failure(s)" >&2
  exit 1
fi
echo "hostile_outputs_test: passed"
