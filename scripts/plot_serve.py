#!/usr/bin/python3
"""Latency distributions and time series of a `podsim serve` run, as a PNG.

Reads the per-request CSV (`podsim serve --requests FILE`) and, optionally,
the time-series CSV (`--timeseries FILE`), and draws: the distributions
(empirical CDFs) of TTFT, TPOT and end-to-end latency in milliseconds, with
the p50/p90/p99 marked; when the per-request CSV has a `max_tbt_s` column,
the distribution of each request's longest time between tokens beside its
TPOT; and, with a time series, the waiting queue, running batch and KV-cache
occupancy of every replica over time. docs/serving.md describes the columns.

The SLOs are drawn as vertical lines on the distributions they bound, each
labelled with its target and the share of requests within it: from the serve
summary (`--summary FILE`, `podsim serve --summary-json` or `--summary-csv`:
`slo_ttft_ms`, `slo_tpot_ms`, `slo_tbt_ms` where present, 0 meaning none, and
each SLO class's `ttft_ms`, `tpot_ms`, `tbt_ms`, drawn dotted and named by
class) or from `--slo-ttft-ms`, `--slo-tpot-ms`, `--slo-tbt-ms`, which take
the place of the summary's overall SLOs. --describe prints what was drawn.

Exit codes: 0 ok, 2 bad input or usage, or matplotlib missing (the message
names the file, the line and what is wrong; no image is written). The image is
written whole or not at all, with no timestamp in it.

Example:
  podsim serve workloads/serve/llama3-70b-azure-conv.serve.textproto \\
      --requests r.csv --timeseries t.csv --summary-json s.json
  scripts/plot_serve.py r.csv --timeseries t.csv --summary s.json --out serve.png
"""

import argparse
import csv
import io
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_common import describe, pyplot, save  # noqa: E402  (beside this script)

EXIT_BAD_INPUT = 2
LATENCIES = (("ttft_s", "TTFT"), ("tpot_s", "TPOT"), ("e2e_s", "end-to-end"))
TBT = "max_tbt_s"  # each request's longest time between tokens (podsim serve since issue 32)
# The SLOs: the summary's field, a class's field, the latency it bounds, its name.
SLOS = (("slo_ttft_ms", "ttft_ms", "ttft_s", "TTFT"), ("slo_tpot_ms", "tpot_ms", "tpot_s", "TPOT"),
        ("slo_tbt_ms", "tbt_ms", TBT, "TBT"))
SERIES = (("waiting", "waiting requests"), ("running", "running batch"),
          ("kv_utilisation", "KV-cache occupancy"))
# Paul Tol's colour-blind-safe "bright" scheme, as plot_breakdown.py.
COLOURS = ("#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377", "#BBBBBB")


class InputError(Exception):
    """Bad input: the message names the file and the problem."""


def rows(path, needed):
    try:
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read: {e}") from None
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in needed if c not in (reader.fieldnames or [])]
    if missing:
        raise InputError(f"{path}: missing column(s) {', '.join(missing)}")
    return list(reader)


def number(value, path, line, key):
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{path}:{line}: '{key}' is not a number: {value!r}") from None
    if not math.isfinite(v) or v < 0:
        raise InputError(f"{path}:{line}: '{key}' must be a finite number >= 0, got {value}")
    return v


def latencies(path):
    """{column: sorted milliseconds} over the requests that completed; max TBT
    (under TBT) only when the CSV has the column."""
    table = rows(path, [k for k, _ in LATENCIES] + ["status"])
    keys = [k for k, _ in LATENCIES] + ([TBT] if table and TBT in table[0] else [])
    out = {key: [] for key in keys}
    for i, row in enumerate(table, start=2):
        if row["status"] != "ok":
            continue
        for key in keys:
            if row[key] != "":  # TPOT and TBT are empty for one output token
                out[key].append(number(row[key], path, i, key) * 1e3)
    if not out["e2e_s"]:
        raise InputError(f"{path}: no completed request to plot")
    return {k: sorted(v) for k, v in out.items()}


def slo_value(value, where, key):
    """An SLO in ms: a number >= 0 (0: none), or an InputError naming where and the field."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{where}: '{key}' is not a number: {value!r}") from None
    if not math.isfinite(v) or v < 0:
        raise InputError(f"{where}: '{key}' must be a finite number >= 0 ms, got {value!r}")
    return v


def summary_slos(path):
    """[(latency column, ms, class name or "")] from a serve summary, JSON or one CSV row."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read: {e}") from None
    if text.lstrip()[:1] == "{":
        try:
            report = json.loads(text)
        except json.JSONDecodeError as e:
            raise InputError(f"{path}: invalid JSON: {e}") from None
    else:
        table = list(csv.DictReader(io.StringIO(text)))
        if len(table) != 1:
            raise InputError(f"{path}: expected the serve summary (one JSON object or one CSV "
                             f"row), found {len(table)} CSV rows")
        report = table[0]
    if not isinstance(report, dict) or not any(k in report for k, _, _, _ in SLOS):
        raise InputError(f"{path}: not a podsim serve summary (no slo_ttft_ms or slo_tpot_ms)")
    out = []
    for key, _, column, _ in SLOS:
        if report.get(key) not in (None, ""):
            v = slo_value(report[key], path, key)
            if v > 0:
                out.append((column, v, ""))
    classes = report.get("slo_classes") or []
    if not isinstance(classes, list):
        raise InputError(f"{path}: 'slo_classes' is not a list")
    for n, c in enumerate(classes):
        if not isinstance(c, dict):
            raise InputError(f"{path}: slo_classes[{n}] is not an object")
        for _, key, column, _ in SLOS:
            if c.get(key) not in (None, ""):
                v = slo_value(c[key], path, f"slo_classes[{n}].{key}")
                if v > 0:
                    out.append((column, v, str(c.get("name") or "no class")))
    return out


def slos_of(args):
    """The SLO lines to draw: the summary's, its overall ones replaced by the options given."""
    out = summary_slos(args.summary) if args.summary else []
    for option, column in ((args.slo_ttft_ms, "ttft_s"), (args.slo_tpot_ms, "tpot_s"),
                           (args.slo_tbt_ms, TBT)):
        if option is not None:
            name = f"--slo-{column.split('_')[-2] if column == TBT else column[:-2]}-ms"
            v = slo_value(option, "plot_serve", name)
            if v <= 0:
                raise InputError(f"{name} must be a time > 0 ms, got {option}")
            out = [s for s in out if not (s[0] == column and s[2] == "")] + [(column, v, "")]
    return out


def series(path):
    """{replica: {column: [(time_s, value)]}} in file order."""
    out = {}
    for i, row in enumerate(rows(path, ["time_s", "replica"] + [k for k, _ in SERIES]), start=2):
        t = number(row["time_s"], path, i, "time_s")
        by = out.setdefault(row["replica"], {k: [] for k, _ in SERIES})
        for key, _ in SERIES:
            by[key].append((t, number(row[key], path, i, key)))
    if not out:
        raise InputError(f"{path}: no samples to plot")
    return out


def percentile(values, p):
    """Nearest rank, as podsim's summary computes it."""
    k = max(1, math.ceil(p / 100 * len(values)))
    return values[k - 1]


def cdf(ax, values, colour, label, **style):
    ax.step(values, [(i + 1) / len(values) for i in range(len(values))], where="post",
            color=colour, label=label, **style)


def slo_lines(ax, lat, slos, columns):
    """Vertical lines at the SLOs that bound `columns`: the overall ones dashed and
    labelled with the share of requests within them, the classes' dotted."""
    names = {k: n for _, _, k, n in SLOS}
    colours = dict(zip([k for k, _ in LATENCIES] + [TBT], COLOURS[:3] + (COLOURS[5],)))
    merged = {}  # (column, ms) -> class names ("" for the overall SLO)
    for column, ms, who in slos:
        if column in columns:
            merged.setdefault((column, ms), []).append(who)
    for (column, ms), who in sorted(merged.items(), key=lambda kv: (columns.index(kv[0][0]),
                                                                      kv[0][1])):
        classes = [w for w in who if w]
        text = f"{names[column]} SLO {ms:g} ms"
        if "" in who and lat.get(column):
            within = sum(1 for v in lat[column] if v <= ms) / len(lat[column])
            text += f": {100 * within:.0f}% within"
        if classes:
            text = f"{', '.join(classes)}{' and all' if '' in who else ''}: {text}"
        ax.axvline(ms, color=colours[column], linestyle="--" if "" in who else ":",
                   linewidth=1.0, gid="slo", label=text)
        ax.text(ms, 0.97, text, rotation=90, va="top", ha="right", fontsize=7,
                color=colours[column], transform=ax.get_xaxis_transform(),
                bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "none", "pad": 1})


def draw(lat, ts, slos, title, out, after=None):
    plt = pyplot("plot_serve")
    tbt = bool(lat.get(TBT))
    panels = 1 + tbt + (len(SERIES) if ts else 0)
    fig, axes = plt.subplots(panels, 1, figsize=(8, 3 + 2.2 * (panels - 1)), squeeze=False)
    ax = axes[0][0]
    for (key, label), colour in zip(LATENCIES, COLOURS):
        v = lat[key]
        if not v:
            continue
        cdf(ax, v, colour, f"{label} (p50 {percentile(v, 50):.0f}, p99 {percentile(v, 99):.0f} ms)")
        for p in (50, 90, 99):
            ax.plot([percentile(v, p)], [p / 100], marker="o", color=colour, markersize=3)
    slo_lines(ax, lat, slos, ["ttft_s", "tpot_s"])
    ax.set_xscale("log")
    ax.set_xlabel("latency (ms)")
    ax.set_ylabel("fraction of requests")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(handles=[h for h in ax.get_lines() if not h.get_gid() and
                       not h.get_label().startswith("_")], loc="lower right", fontsize=8)
    if tbt:
        a = axes[1][0]
        v = lat[TBT]
        cdf(a, v, COLOURS[5], f"longest gap between tokens (p50 {percentile(v, 50):.0f}, "
            f"p99 {percentile(v, 99):.0f} ms)")
        if lat["tpot_s"]:
            t = lat["tpot_s"]
            cdf(a, t, COLOURS[1], f"TPOT, the mean gap (p99 {percentile(t, 99):.0f} ms)",
                linestyle="--", linewidth=0.8)
        slo_lines(a, lat, slos, [TBT])
        a.set_xscale("log")
        a.set_xlabel("time between tokens of a request (ms)")
        a.set_ylabel("fraction of requests")
        a.set_title("Time between tokens: each request's longest gap", fontsize=9)
        a.grid(True, which="both", alpha=0.3)
        a.legend(handles=[h for h in a.get_lines() if not h.get_gid()], loc="lower right",
                 fontsize=8)
    if ts:
        for (key, label), row in zip(SERIES, axes[1 + tbt:]):
            a = row[0]
            for (replica, by), colour in zip(sorted(ts.items()), COLOURS * 100):
                points = by[key]
                a.step([p[0] for p in points], [p[1] for p in points], where="post",
                       color=colour, label=replica, linewidth=0.8)
            a.set_ylabel(label, fontsize=8)
            a.grid(True, alpha=0.3)
        axes[-1][0].set_xlabel("time (s)")
        if len(ts) <= 8:
            axes[1 + tbt][0].legend(loc="upper right", fontsize=7)
    fig.tight_layout()
    save(fig, out)
    if after:
        after(fig)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     epilog="Exit codes: 0 ok, 2 bad input or usage.")
    parser.add_argument("requests", help="podsim serve --requests CSV")
    parser.add_argument("--timeseries", help="podsim serve --timeseries CSV")
    parser.add_argument("--summary", metavar="FILE",
                        help="podsim serve --summary-json (or --summary-csv) file: its SLOs "
                             "and SLO classes are drawn")
    parser.add_argument("--slo-ttft-ms", metavar="MS", help="draw this TTFT SLO (ms)")
    parser.add_argument("--slo-tpot-ms", metavar="MS", help="draw this TPOT SLO (ms)")
    parser.add_argument("--slo-tbt-ms", metavar="MS",
                        help="draw this SLO on the longest time between tokens (ms)")
    parser.add_argument("--title", default="podsim serve", help="chart title")
    parser.add_argument("--out", default="serve.png", help="PNG to write (default serve.png)")
    parser.add_argument("--describe", action="store_true",
                        help="also print what was drawn on stdout")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return EXIT_BAD_INPUT if e.code else 0
    try:
        lat = latencies(args.requests)
        ts = series(args.timeseries) if args.timeseries else None
        slos = slos_of(args)
    except InputError as e:
        print(f"plot_serve: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if any(column == TBT for column, _, _ in slos) and TBT not in lat:
        print(f"plot_serve: {args.requests}: no {TBT} column, so the TBT SLO is not drawn",
              file=sys.stderr)
    try:
        draw(lat, ts, slos, args.title, args.out, describe if args.describe else None)
    except OSError as e:
        print(f"plot_serve: cannot write {args.out}: {e.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return 0


if __name__ == "__main__":
    sys.exit(main())
