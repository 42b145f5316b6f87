#!/usr/bin/python3
"""Latency distributions and time series of a `podsim serve` run, as a PNG.

Reads the per-request CSV (`podsim serve --requests FILE`) and, optionally,
the time-series CSV (`--timeseries FILE`), and draws: the distributions
(empirical CDFs) of TTFT, TPOT and end-to-end latency in milliseconds, with
the p50/p90/p99 marked; and, with a time series, the waiting queue, running
batch and KV-cache occupancy of every replica over time. docs/serving.md
describes the columns.

Exit codes: 0 ok, 2 bad input or usage, or matplotlib missing (the message
names the file, the line and what is wrong; no image is written). The image is
written whole or not at all, with no timestamp in it.

Example:
  podsim serve workloads/serve/llama3-70b-azure-conv.serve.textproto \\
      --requests r.csv --timeseries t.csv
  scripts/plot_serve.py r.csv --timeseries t.csv --out serve.png
"""

import argparse
import csv
import io
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_common import pyplot, save  # noqa: E402  (beside this script)

EXIT_BAD_INPUT = 2
LATENCIES = (("ttft_s", "TTFT"), ("tpot_s", "TPOT"), ("e2e_s", "end-to-end"))
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
    """{column: sorted milliseconds} over the requests that completed."""
    out = {key: [] for key, _ in LATENCIES}
    for i, row in enumerate(rows(path, [k for k, _ in LATENCIES] + ["status"]), start=2):
        if row["status"] != "ok":
            continue
        for key, _ in LATENCIES:
            if row[key] != "":  # TPOT is empty for one output token
                out[key].append(number(row[key], path, i, key) * 1e3)
    if not out["e2e_s"]:
        raise InputError(f"{path}: no completed request to plot")
    return {k: sorted(v) for k, v in out.items()}


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


def draw(lat, ts, title, out):
    plt = pyplot("plot_serve")
    panels = 1 + (len(SERIES) if ts else 0)
    fig, axes = plt.subplots(panels, 1, figsize=(8, 3 + 2.2 * (panels - 1)), squeeze=False)
    ax = axes[0][0]
    for (key, label), colour in zip(LATENCIES, COLOURS):
        v = lat[key]
        if not v:
            continue
        ax.step(v, [(i + 1) / len(v) for i in range(len(v))], where="post", color=colour,
                label=f"{label} (p50 {percentile(v, 50):.0f}, p99 {percentile(v, 99):.0f} ms)")
        for p in (50, 90, 99):
            ax.plot([percentile(v, p)], [p / 100], marker="o", color=colour, markersize=3)
    ax.set_xscale("log")
    ax.set_xlabel("latency (ms)")
    ax.set_ylabel("fraction of requests")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    if ts:
        for (key, label), row in zip(SERIES, axes[1:]):
            a = row[0]
            for (replica, by), colour in zip(sorted(ts.items()), COLOURS * 100):
                points = by[key]
                a.step([p[0] for p in points], [p[1] for p in points], where="post",
                       color=colour, label=replica, linewidth=0.8)
            a.set_ylabel(label, fontsize=8)
            a.grid(True, alpha=0.3)
        axes[-1][0].set_xlabel("time (s)")
        if len(ts) <= 8:
            axes[1][0].legend(loc="upper right", fontsize=7)
    fig.tight_layout()
    save(fig, out)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("requests", help="podsim serve --requests CSV")
    parser.add_argument("--timeseries", help="podsim serve --timeseries CSV")
    parser.add_argument("--title", default="podsim serve", help="chart title")
    parser.add_argument("--out", default="serve.png", help="PNG to write (default serve.png)")
    args = parser.parse_args(argv)
    try:
        lat = latencies(args.requests)
        ts = series(args.timeseries) if args.timeseries else None
    except InputError as e:
        print(f"plot_serve: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    draw(lat, ts, args.title, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
