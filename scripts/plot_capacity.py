#!/usr/bin/python3
"""A `podsim capacity` search, as a PNG.

Reads the CSV of `podsim capacity SERVE_FILE --format csv` (the
podsim.output.CapacityReport's columns, one row per serve run: runs.rate_per_s,
runs.ttft_s, runs.tpot_s, runs.rejected, runs.meets_slo at
objectives.percentile; or the older table's rate_per_s, ttft_pNN_s,
tpot_pNN_s, completed, rejected, meets_slo) and draws, against the arrival rate, the
percentile TTFT and TPOT of every run (numbered in the order the search ran
them; filled if the run met the objectives, a cross if not or if it
rejected a request), the objectives as horizontal lines (the report's
objectives.ttft_ms and tpot_ms, or --ttft-ms, --tpot-ms, which the older
table does not carry) and the capacity found, the highest rate that met them,
as a vertical line. A search in which no rate
met them is drawn too, and says so. docs/serving.md ("Capacity") describes
the search.

Exit codes: 0 ok, 2 bad input or usage, or matplotlib missing (the message
names the file, the line and what is wrong; no image is written). The image is
written whole or not at all, with no timestamp in it.

Example:
  podsim capacity workloads/serve/llama3-70b-azure-conv.serve.textproto \\
      --format csv > capacity.csv
  scripts/plot_capacity.py capacity.csv --out capacity.png
"""

import argparse
import csv
import io
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_common import pyplot, save  # noqa: E402  (beside this script)

EXIT_BAD_INPUT = 2
# Paul Tol's colour-blind-safe "bright" scheme, as plot_breakdown.py.
COLOURS = ("#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377", "#BBBBBB")
MET, MISSED, CAPACITY, LINK = COLOURS[0], COLOURS[1], COLOURS[2], COLOURS[6]
OTHER_TABLES = {"config": "--target-rate", "copies": "--target-rate --fewest-replicas"}


class InputError(Exception):
    """Bad input: the message names the file and the problem."""


def number(value, path, line, key, positive=False):
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{path}:{line}: '{key}' is not a number: {value!r}") from None
    if not math.isfinite(v) or v < 0 or (positive and v == 0):
        bound = "> 0" if positive else ">= 0"
        raise InputError(f"{path}:{line}: '{key}' must be a finite number {bound}, got {value}")
    return v


def report_rows(path, reader, header):
    """(percentile, [run], objectives) of a CapacityReport CSV (a rate search)."""
    needed = ["mode", "objectives.percentile", "objectives.ttft_ms", "objectives.tpot_ms",
              "runs.rate_per_s", "runs.ttft_s", "runs.tpot_s", "runs.rejected",
              "runs.meets_slo"]
    missing = [c for c in needed if c not in header]
    if missing:
        raise InputError(f"{path}: missing column(s) {', '.join(missing)}")
    runs = []
    p = "NN"
    objectives = {"ttft_ms": 0.0, "tpot_ms": 0.0}
    status = reason = ""
    for i, row in enumerate(reader, start=2):
        if None in row or any(row[c] is None for c in needed):
            raise InputError(f"{path}:{i}: expected {len(header)} cells")
        status, reason = row.get("status", ""), row.get("reason", "")
        if row["mode"] != "rate_search":
            raise InputError(f"{path}:{i}: mode {row['mode']!r}: a `podsim capacity "
                             "--target-rate` answer, not a capacity search (one row per rate)")
        p = str(int(number(row["objectives.percentile"], path, i, "objectives.percentile")))
        for key in ("ttft_ms", "tpot_ms"):
            objectives[key] = number(row[f"objectives.{key}"], path, i, f"objectives.{key}")
        if row["runs.rate_per_s"] == "":
            continue  # no run (an unattainable target): its one row
        met = row["runs.meets_slo"]
        if met not in ("true", "false"):
            raise InputError(f"{path}:{i}: 'runs.meets_slo' must be true or false, got {met!r}")
        runs.append({
            "rate_per_s": number(row["runs.rate_per_s"], path, i, "runs.rate_per_s",
                                 positive=True),
            "ttft_ms": number(row["runs.ttft_s"], path, i, "runs.ttft_s") * 1e3,
            "tpot_ms": number(row["runs.tpot_s"], path, i, "runs.tpot_s") * 1e3,
            "rejected": number(row["runs.rejected"], path, i, "runs.rejected"),
            "met": met == "true",
        })
    if not runs:
        said = f" ({status}: {reason})" if status else ""
        raise InputError(f"{path}: no serve run to plot{said}")
    return p, runs, objectives


def search(path, objectives=None):
    """(percentile, [run]) in the order the search ran them; a run is a dict
    of rate_per_s, ttft_ms, tpot_ms, rejected and met. `objectives`, a dict,
    receives a CapacityReport's ttft_ms and tpot_ms."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read: {e}") from None
    reader = csv.DictReader(io.StringIO(text))
    header = reader.fieldnames or []
    if not header:
        raise InputError(f"{path}: empty; expected the CSV of `podsim capacity SERVE_FILE "
                         "--format csv`")
    if "runs.rate_per_s" in header:
        p, runs, found = report_rows(path, reader, header)
        if objectives is not None:
            objectives.update(found)
        return p, runs
    for column, mode in OTHER_TABLES.items():
        if column in header:
            raise InputError(f"{path}: has a '{column}' column: a `podsim capacity {mode}` "
                             "table, not a capacity search (one row per rate)")
    ttft = [c for c in header if re.fullmatch(r"ttft_p\d+_s", c)]
    p = ttft[0][len("ttft_p"):-len("_s")] if len(ttft) == 1 else "NN"
    needed = ["rate_per_s", f"ttft_p{p}_s", f"tpot_p{p}_s", "completed", "rejected", "meets_slo"]
    missing = [c for c in needed if c not in header]
    if missing:
        raise InputError(f"{path}: missing column(s) {', '.join(missing)} (header: "
                         f"{','.join(header)})")
    runs = []
    for i, row in enumerate(reader, start=2):
        if None in row or any(row[c] is None for c in needed):
            raise InputError(f"{path}:{i}: expected {len(header)} cells")
        met = row["meets_slo"]
        if met not in ("yes", "no"):
            raise InputError(f"{path}:{i}: 'meets_slo' must be yes or no, got {met!r}")
        rejected = number(row["rejected"], path, i, "rejected")
        number(row["completed"], path, i, "completed")
        runs.append({
            "rate_per_s": number(row["rate_per_s"], path, i, "rate_per_s", positive=True),
            "ttft_ms": number(row[f"ttft_p{p}_s"], path, i, f"ttft_p{p}_s") * 1e3,
            "tpot_ms": number(row[f"tpot_p{p}_s"], path, i, f"tpot_p{p}_s") * 1e3,
            "rejected": rejected,
            "met": met == "yes",
        })
    if not runs:
        raise InputError(f"{path}: no serve run to plot (a header and no rows)")
    return p, runs


def capacity(runs):
    """The highest rate that met the objectives (what the search reports), or None."""
    met = [r["rate_per_s"] for r in runs if r["met"]]
    return max(met) if met else None


def draw(p, runs, objectives, title, out):
    plt = pyplot("plot_capacity")
    cap = capacity(runs)
    fig, axes = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    by_rate = sorted(runs, key=lambda r: r["rate_per_s"])
    for ax, (key, name) in zip(axes, (("ttft_ms", "TTFT"), ("tpot_ms", "TPOT"))):
        ax.plot([r["rate_per_s"] for r in by_rate], [r[key] for r in by_rate], color=LINK,
                linewidth=0.8, zorder=1)
        for met, colour, marker, label in ((True, MET, "o", "met the objectives"),
                                           (False, MISSED, "X", "missed them, or rejected requests")):
            pts = [r for r in runs if r["met"] == met]
            if pts:
                ax.scatter([r["rate_per_s"] for r in pts], [r[key] for r in pts], color=colour,
                           marker=marker, s=36, zorder=3, label=label)
        for order, r in enumerate(runs, start=1):
            ax.annotate(str(order), (r["rate_per_s"], r[key]), textcoords="offset points",
                        xytext=(4, 4), fontsize=7, color="#444444")
        objective = objectives[key]
        if objective:
            ax.axhline(objective, color="black", linestyle="--", linewidth=1,
                       label=f"objective {objective:g} ms")
        if cap is not None:
            ax.axvline(cap, color=CAPACITY, linewidth=1.5,
                       label=f"capacity {cap:.3f} requests/s")
        values = [r[key] for r in runs if r[key] > 0] + ([objective] if objective else [])
        if values and max(values) > 10 * min(values):
            ax.set_yscale("log")
        ax.set_ylabel(f"p{p} {name} (ms)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(loc="upper left" if key == "ttft_ms" else "center left", fontsize=8)
    axes[1].set_xlabel("arrival rate (requests/s); numbers: the order the search ran them")
    verdict = (f"capacity {cap:.3f} requests/s" if cap is not None
               else "no rate tried met the objectives")
    axes[0].set_title(f"{title}\n{verdict}", fontsize=10)
    fig.tight_layout()
    save(fig, out)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("csv", help="podsim capacity SERVE_FILE --format csv output")
    parser.add_argument("--ttft-ms", type=float, default=0,
                        help="TTFT objective to draw, in ms (0: none)")
    parser.add_argument("--tpot-ms", type=float, default=0,
                        help="TPOT objective to draw, in ms (0: none)")
    parser.add_argument("--title", default="podsim capacity", help="chart title")
    parser.add_argument("--out", default="capacity.png",
                        help="PNG to write (default capacity.png)")
    args = parser.parse_args(argv)
    for flag, v in (("--ttft-ms", args.ttft_ms), ("--tpot-ms", args.tpot_ms)):
        if not math.isfinite(v) or v < 0:
            parser.error(f"{flag} must be a finite number >= 0, got {v:g}")  # exits 2
    found = {}
    try:
        p, runs = search(args.csv, found)
    except InputError as e:
        print(f"plot_capacity: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if capacity(runs) is None:
        print(f"plot_capacity: {args.csv}: no rate tried met the objectives; drawn all the same",
              file=sys.stderr)
    # Given on the command line, an objective overrides the report's.
    objectives = {"ttft_ms": args.ttft_ms or found.get("ttft_ms", 0),
                  "tpot_ms": args.tpot_ms or found.get("tpot_ms", 0)}
    draw(p, runs, objectives, args.title, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
