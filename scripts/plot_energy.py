#!/usr/bin/python3
"""A `podsim sweep` as a PNG chart: energy per token and latency against the swept knob.

Reads the CSV that `podsim sweep` writes (one row per point; result schema 14
or later) and draws one panel per workload (rows grouped by
`inputs.workload.name` and `inputs.serving.scenario.phase`, so a sweep of the
phase gets a panel per phase). The x axis is the --x column, a number (e.g.
`inputs.topology.chip.power.clock_factor`, `inputs.serving.scenario.batch`),
sorted, on a log scale when it spans more than a factor 16. The left axis is
the energy per token in millijoules (`serving.energy.j_per_token`), or with
--metric the dollars or grams of CO2e per million tokens
(`serving.cost.usd_per_m_tokens`, `serving.cost.gco2e_per_m_tokens`, written
by `podsim sweep --pricing FILE`); solid lines. The right axis is the
per-token latency in milliseconds, dotted: time per output token for decode,
time to first token for prefill (`serving.tpot_us`, `serving.ttft_us`,
whichever is not 0; the phase decides if both are). One line of each per
value of the --series column (e.g. `inputs.serving.model.weight_dtype`: bf16
and int8), in the order the sweep lists them.

--target-ms T draws T on the latency axis, dashed, and rings on each line the
point with the lowest energy per token (or --metric) among those whose
latency is at most T (the lower latency, then the smaller x, on ties),
labelled with its x value. A line with no point under T gets no ring, and a
note on stderr says so with its lowest latency.

Rows whose status is not `ok` are left out, and said so on stderr. A row
without a power model (`serving.energy.modelled` false) is bad input, as is
one not priced (`serving.cost.priced` false) under a cost --metric, or two
rows of a panel and line with the same x (a second swept knob wants
--series).

Exit codes: 0 ok, 2 bad input or usage, or matplotlib missing (the message
names the file, the row and what is wrong; no image is written). The image
is written whole or not at all, with no timestamp in it.

Example (docs/energy.md):
  podsim sweep workloads/sweeps/clock-energy-decode.textproto > clock.csv
  scripts/plot_energy.py clock.csv --x inputs.topology.chip.power.clock_factor \\
      --target-ms 50 --out clock.png
  podsim sweep workloads/sweeps/int8-weights-energy-batch.textproto > int8.csv
  scripts/plot_energy.py int8.csv --x inputs.serving.scenario.batch \\
      --series inputs.serving.model.weight_dtype --out int8.png
"""

import argparse
import csv
import math
import os
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_common import InputError, number, pyplot, save  # noqa: E402  (beside this script)

EXIT_BAD_INPUT = 2
NAME = "inputs.workload.name"
PHASE = "inputs.serving.scenario.phase"
MODELLED = "serving.energy.modelled"
PRICED = "serving.cost.priced"
TPOT = "serving.tpot_us"
TTFT = "serving.ttft_us"
# --metric: its column, the factor to the unit drawn, the axis label, whether it is priced.
METRICS = {
    "j_per_token": ("serving.energy.j_per_token", 1e3, "energy per token (mJ)", False),
    "usd_per_m_tokens": ("serving.cost.usd_per_m_tokens", 1.0, "$ per million tokens", True),
    "gco2e_per_m_tokens": ("serving.cost.gco2e_per_m_tokens", 1.0, "gCO2e per million tokens",
                           True),
}
LATENCY_NAMES = {TPOT: "time per output token", TTFT: "time to first token"}
# Paul Tol's colour-blind-safe "bright" scheme, as the other plot scripts.
COLOURS = ("#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377", "#BBBBBB")
# The x axis is logarithmic when its largest value is more than this times its smallest.
LOG_SPAN = 16


@dataclass
class Point:
    line: int  # in the CSV, 1 the header
    group: str  # the panel: workload (phase)
    series: str  # the --series value, "" without --series
    x: float
    metric: float  # in the CSV's unit: J per token, $ or gCO2e per million tokens
    latency_ms: float
    latency: str  # the column it came from: TPOT or TTFT


def flag(value, where, key):
    """A CSV boolean cell as a bool; an InputError otherwise."""
    if value in ("true", "false"):
        return value == "true"
    raise InputError(f"{where}: '{key}' is not true or false: {value!r}")


def latency_of(row, where):
    """(milliseconds, column) of the row's per-token latency: TPOT or TTFT, whichever
    is not 0 (by the phase when both are not)."""
    tpot = number(row[TPOT], where, TPOT)
    ttft = number(row[TTFT], where, TTFT)
    if tpot == 0 and ttft == 0:
        raise InputError(f"{where}: no per-token latency: '{TPOT}' and '{TTFT}' are both 0")
    if ttft > 0 and (tpot == 0 or row.get(PHASE) == "prefill"):
        return ttft / 1000, TTFT
    return tpot / 1000, TPOT


def read_sweep(path, x, series=None, metric="j_per_token"):
    """The ok rows of a sweep CSV as Points, and the count of rows left out."""
    column, _, _, priced = METRICS[metric]
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}") from None
    except (UnicodeDecodeError, csv.Error) as e:
        raise InputError(f"{path}: not a CSV file: {e}") from None
    if not rows:
        raise InputError(f"{path}: no rows (expected the CSV of `podsim sweep`)")
    for key in ("status", NAME, MODELLED, column, TPOT, TTFT) + ((PRICED,) if priced else ()):
        if key not in rows[0]:
            raise InputError(f"{path}: no '{key}' column: not the serving CSV of a `podsim "
                             "sweep` with result schema 14 or later")
    for key, option in ((x, "--x"), (series, "--series")):
        if key is not None and key not in rows[0]:
            raise InputError(f"{path}: no '{key}' column (the {option} column)")
    points = []
    skipped = 0
    seen = {}  # (group, series, x) -> line
    for i, row in enumerate(rows, start=2):
        if row["status"] != "ok":
            skipped += 1
            continue
        where = f"{path}:{i}"
        if not flag(row[MODELLED], where, MODELLED):
            raise InputError(f"{where}: no power model ('{MODELLED}' is false): the chip of "
                             "the row's topology has no chip.power (docs/energy.md)")
        if priced and not flag(row[PRICED], where, PRICED):
            raise InputError(f"{where}: not priced ('{PRICED}' is false): run podsim sweep "
                             "with --pricing FILE for --metric " + metric)
        phase = row.get(PHASE) or ""
        group = f"{row[NAME]} ({phase})" if phase else row[NAME]
        latency_ms, latency = latency_of(row, where)
        p = Point(i, group, row[series] if series else "", number(row[x], where, x),
                  number(row[column], where, column), latency_ms, latency)
        key = (p.group, p.series, p.x)
        if key in seen:
            raise InputError(f"{where}: {group}{' ' + p.series if series else ''}: {x} "
                             f"{row[x]} again (line {seen[key]} has it): a second swept "
                             "column wants --series")
        seen[key] = i
        points.append(p)
    if not points:
        raise InputError(f"{path}: no row has status ok ({skipped} left out)")
    return points, skipped


def in_order(values):
    """The distinct values, first-seen order."""
    return list(dict.fromkeys(values))


def lowest_under(points, target_ms):
    """Of the points whose latency is <= target, the one with the lowest metric (the
    lower latency, then the smaller x, on ties), or None."""
    under = [p for p in points if p.latency_ms <= target_ms]
    return min(under, key=lambda p: (p.metric, p.latency_ms, p.x), default=None)


def notes_without_point(points, target_ms, path):
    """One stderr line per panel and line with no point under the target."""
    notes = []
    for group in in_order(p.group for p in points):
        for name in in_order(p.series for p in points if p.group == group):
            mine = [p for p in points if p.group == group and p.series == name]
            if lowest_under(mine, target_ms) is None:
                low = min(mine, key=lambda p: p.latency_ms)
                notes.append(f"{path}: {group}{' ' + name if name else ''}: no point has "
                             f"{LATENCY_NAMES[low.latency]} <= {target_ms:g} ms (the lowest "
                             f"is {low.latency_ms:,.3f} ms); none marked")
    return notes


def plot(points, out, title, x_column, series_column, metric, target_ms):
    plt = pyplot("plot_energy")
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FixedLocator, NullLocator

    _, scale, metric_label, _ = METRICS[metric]
    x_name = x_column.rsplit(".", 1)[-1]
    groups = in_order(p.group for p in points)
    names = in_order(p.series for p in points)  # colours the same in every panel
    fig, axes = plt.subplots(len(groups), 1, figsize=(10, 3.6 * len(groups) + 0.6),
                             squeeze=False)
    for ax, group in zip(axes[:, 0], groups):
        right = ax.twinx()
        mine = [p for p in points if p.group == group]
        kinds = in_order(p.latency for p in mine)
        latency_name = LATENCY_NAMES[kinds[0]] if len(kinds) == 1 else "per-token latency"
        marked = 0
        for j, name in enumerate(names):
            line = sorted((p for p in mine if p.series == name), key=lambda p: p.x)
            if not line:
                continue
            colour = COLOURS[j % len(COLOURS)]
            xs = [p.x for p in line]
            ax.plot(xs, [p.metric * scale for p in line], "-o", color=colour, markersize=4,
                    linewidth=1.4)
            right.plot(xs, [p.latency_ms for p in line], ":s", color=colour, markersize=3,
                       linewidth=1.2)
            best = lowest_under(line, target_ms) if target_ms is not None else None
            if best is not None:
                marked += 1
                ax.plot([best.x], [best.metric * scale], "o", markersize=14, fillstyle="none",
                        color="#000000", markeredgewidth=1.2)
                ax.annotate(f"{x_name} {best.x:g}", (best.x, best.metric * scale),
                            textcoords="offset points", xytext=(8, -8), ha="left",
                            va="top", fontsize=8, color=colour,
                            bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none",
                                  "alpha": 0.8})
        xs = sorted({p.x for p in mine})
        if xs[0] > 0 and xs[-1] > LOG_SPAN * xs[0]:
            ax.set_xscale("log")
            ax.xaxis.set_minor_locator(NullLocator())
        if len(xs) <= 12:
            ax.xaxis.set_major_locator(FixedLocator(xs))
            ax.set_xticklabels([f"{v:g}" for v in xs])
        top = max(p.latency_ms for p in mine)
        handles = [Line2D([], [], color=COLOURS[j % len(COLOURS)], linewidth=3, label=name)
                   for j, name in enumerate(names) if name and any(p.series == name for p in mine)]
        handles += [Line2D([], [], color="#444444", linestyle="-", marker="o", markersize=4,
                           label=f"{metric_label.split(' (')[0]} (left)"),
                    Line2D([], [], color="#444444", linestyle=":", marker="s", markersize=3,
                           label=f"{latency_name} (right)")]
        if target_ms is not None:
            top = max(top, target_ms)
            right.axhline(target_ms, color="#777777", linestyle="--", linewidth=1)
            handles.append(Line2D([], [], color="#777777", linestyle="--", linewidth=1,
                                  label=f"target {target_ms:g} ms"
                                        + ("" if marked else " (no point under it)")))
            if marked:
                handles.append(Line2D([], [], color="#000000", marker="o", markersize=10,
                                      fillstyle="none", linestyle="none",
                                      label=f"lowest {metric_label.split(' (')[0]} "
                                            f"under {target_ms:g} ms"))
        right.set_ylim(0, top * 1.08)
        ax.margins(y=0.1)  # room for a ring's label, below right of it
        ax.set_xlabel(x_column)
        ax.set_ylabel(metric_label)
        right.set_ylabel(f"{latency_name} (ms)")
        ax.set_title(group, fontsize=10)
        ax.grid(color="#dddddd", linewidth=0.6)
        ax.set_axisbelow(True)
        ax.legend(handles=handles, fontsize=7, frameon=False, loc="upper left",
                  bbox_to_anchor=(1.1, 1.0), title=series_column.rsplit(".", 1)[-1]
                  if series_column else None, title_fontsize=7)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    save(fig, out)
    plt.close(fig)


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="plot_energy.py",
        description="Draw a podsim sweep's energy per token and latency against a swept "
                    "column as a PNG.",
        epilog="Exit codes: 0 ok, 2 bad input or usage.")
    p.add_argument("input", metavar="CSV", help="podsim sweep output (serving rows)")
    p.add_argument("--x", metavar="COLUMN", required=True,
                   help="the swept column on the x axis (numbers)")
    p.add_argument("--series", metavar="COLUMN", help="one line per value of this column")
    p.add_argument("--metric", choices=tuple(METRICS), default="j_per_token",
                   help="the left axis: J per token (drawn in mJ, the default), or $ or "
                        "gCO2e per million tokens (podsim sweep --pricing)")
    p.add_argument("--target-ms", type=float, metavar="MS",
                   help="latency target: a line, and each line's lowest metric under it ringed")
    p.add_argument("--out", metavar="PNG", required=True, help="write the chart here")
    p.add_argument("--title", help="chart title")
    args = p.parse_args(argv)
    if args.target_ms is not None and not (math.isfinite(args.target_ms) and args.target_ms > 0):
        p.error("--target-ms must be a positive number of milliseconds")
    if args.series is not None and args.series == args.x:
        p.error("--series must be another column than --x")
    return args


def main(argv=None):
    try:
        args = parse_args(argv)
    except SystemExit as e:
        return EXIT_BAD_INPUT if e.code else 0
    try:
        points, skipped = read_sweep(args.input, args.x, args.series, args.metric)
    except InputError as e:
        print(f"plot_energy: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if skipped:
        print(f"plot_energy: {args.input}: {skipped} rows not ok were left out", file=sys.stderr)
    if args.target_ms is not None:
        for note in notes_without_point(points, args.target_ms, args.input):
            print(f"plot_energy: {note}", file=sys.stderr)
    try:
        plot(points, args.out, args.title, args.x, args.series, args.metric, args.target_ms)
    except OSError as e:
        print(f"plot_energy: cannot write {args.out}: {e.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return 0


if __name__ == "__main__":
    sys.exit(main())
