#!/bin/sh
# podsim report's page in a real browser: headless Chromium renders it
# offline (every host name unresolvable, so a fetch would fail loudly),
# logs no console message (the page has no script; any CONSOLE line is an
# error, a failed load or a script's), dumps a DOM with the charts in it,
# and writes a screenshot that is not blank. First the same check runs on a
# page with a deliberate script error and must catch it, so the check can
# fail. Exit 77 (CTest's SKIP_RETURN_CODE) where Chromium is not installed.
#
# usage: render_test.sh PODSIM SOURCE_DIR
set -eu
podsim=$1
root=$2
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
  echo "SKIP: chromium is not installed (Debian: apt-get install chromium)"
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/html-render.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# chromium_run PROFILE ARGS...: runs headless Chromium with a profile of its own.
chromium_run() {
  profile=$1
  shift
  # --no-sandbox: Chromium refuses to run as root with its sandbox.
  timeout 120 "$chromium" --headless=new --no-sandbox --disable-gpu --enable-logging=stderr \
    --v=0 --user-data-dir="$work/profile-$profile" --no-first-run --disable-extensions \
    --host-resolver-rules="MAP * ~NOTFOUND" --window-size=1280,2000 "$@"
}

# check_page NAME FILE: 0 when the page renders clean, 1 naming what is wrong.
check_page() {
  name=$1
  page=$2
  chromium_run "$name-shot" --screenshot="$work/$name.png" "file://$page" \
    2> "$work/$name.log" > "$work/$name.out" || { echo "chromium failed on $page"; return 1; }
  if grep -E ':CONSOLE[:(]' "$work/$name.log"; then
    echo "console messages while rendering $page (above)"
    return 1
  fi
  [ -s "$work/$name.png" ] || { echo "no screenshot of $page"; return 1; }
  return 0
}

# 1. The check catches a page whose script fails.
cat > "$work/broken.html" <<'HTML'
<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>broken</title></head>
<body><p>A deliberate script error.</p><script>not_a_function();</script></body></html>
HTML
if check_page broken "$work/broken.html" > "$work/broken.out"; then
  fail "a page with a script error passed the console check: the check cannot fail"
fi
grep -q 'console messages' "$work/broken.out" || fail "broken page: $(cat "$work/broken.out")"
echo "ok: the console check catches a deliberate script error"

# 2. The report of a shipped sweep and the shipped serve example.
cd "$root"
"$podsim" sweep workloads/sweeps/llama3-70b-decode-link-bandwidth-x-batch.textproto \
  --out "$work/sweep.csv" 2> "$work/sweep.err" || fail "podsim sweep: $(cat "$work/sweep.err")"
"$podsim" serve workloads/serve/llama3-8b-poisson.serve.textproto --requests "$work/requests.csv" \
  --timeseries "$work/timeseries.csv" --summary-json "$work/summary.json" > "$work/serve.out" \
  2> "$work/serve.err" || fail "podsim serve: $(cat "$work/serve.err")"
"$podsim" report "$work/sweep.csv" "$work/summary.json" "$work/requests.csv" \
  "$work/timeseries.csv" -o "$work/report.html" || fail "podsim report exited $?"
check_page report "$work/report.html" || fail "the report does not render clean"

# The DOM has the page's charts: the breakdown, the sweep's two, three CDFs
# and three time series.
chromium_run dom --dump-dom "file://$work/report.html" > "$work/dom.html" 2> "$work/dom.log" ||
  fail "chromium --dump-dom failed"
svgs=$(grep -o '<svg' "$work/dom.html" | wc -l)
[ "$svgs" -ge 9 ] || fail "the DOM has $svgs SVG charts, expected at least 9"
grep -q 'Step-time breakdown' "$work/dom.html" || fail "no breakdown in the DOM"

# A blank page's screenshot, for scale: the report's must be much larger
# (a PNG of one colour compresses to almost nothing).
printf '<!DOCTYPE html><html><head><meta charset="utf-8"><title>x</title></head><body></body></html>\n' \
  > "$work/blank.html"
check_page blank "$work/blank.html" || fail "a blank page does not render clean"
blank=$(wc -c < "$work/blank.png")
shot=$(wc -c < "$work/report.png")
[ "$shot" -gt $((blank * 4)) ] ||
  fail "the screenshot ($shot bytes) is hardly larger than a blank page's ($blank bytes)"
echo "ok: the report renders without console messages; $svgs charts; screenshot $shot bytes (blank $blank)"
