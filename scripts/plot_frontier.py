#!/usr/bin/python3
"""The throughput/latency frontier of `podsim search`, as a PNG chart.

Reads the frontier CSV that `podsim search` writes (one row per frontier point:
tokens_per_s_per_chip and tpot_us for decode, ttft_us for prefill) and draws
tokens/s per chip against per-token latency in milliseconds, one staircase per
slice (the `topology` column; each slice's frontier points in latency order,
a point of another slice's frontier may lie under it), each point labelled
with its batch. --target-ms draws the latency target as a vertical line and
rings the best point under it (highest tokens/s per chip), as podsim search
picks it.

--y chooses what is drawn against latency: throughput (the default, above),
energy (tokens per joule, higher is better: the `tokens_per_j` column) or
cost ($ per million tokens, lower is better: the `usd_per_m_tokens` column,
written when the search ran with --pricing; log scale when it spans more than
a factor 20). For energy and cost the staircase joins each slice's points
that no point of lower latency beats in that quantity, the others drawn
hollow: a frontier searched for throughput need not be one in joules or
dollars (`podsim search --objective energy|cost` gives the one that is), and
the ringed best is the most tokens per joule, or the fewest dollars per
million tokens, under the target. A row whose cell for --y is empty (no
power model, or not priced) is bad input.

Exit codes: 0 ok, 2 bad input or usage, or matplotlib missing (the message
names the file and what is wrong; no image is written). The image is written
whole or not at all, with no timestamp in it.

Example (docs/search.md):
  podsim search --model workloads/llama3-8b-decode-v5e.textproto \\
      --topology topologies/v5e-4x4.textproto --phase decode --context 4096 > f.csv
  scripts/plot_frontier.py f.csv --target-ms 30 --out frontier.png
  podsim search ... --pricing topologies/pricing/google-cloud-2026.textproto \\
      --objective energy > e.csv
  scripts/plot_frontier.py e.csv --y energy --target-ms 30 --out energy.png
"""

import argparse
import csv
import io
import math
import os
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_common import InputError, number, pyplot, save  # noqa: E402  (beside this script)

EXIT_BAD_INPUT = 2
THROUGHPUT = "tokens_per_s_per_chip"
LATENCIES = ("tpot_us", "ttft_us")  # decode, prefill
# What --y draws: the frontier CSV's column, the axis label, whether lower is
# better, and why the cell can be empty (energy and cost are the columns
# podsim search appends since issue 30).
Y_KINDS = {
    "throughput": (THROUGHPUT, "tokens/s per chip", False, None),
    "energy": ("tokens_per_j", "tokens per joule", False,
               "no power model for the chip (topology chip.power, docs/energy.md)"),
    "cost": ("usd_per_m_tokens", "$ per million tokens (lower is better)", True,
             "not priced (run podsim search with --pricing FILE)"),
}
# Cost is drawn on a log scale when its points span more than this factor.
COST_LOG_SPAN = 20
# The default title for each --y.
TITLES = {
    "throughput": "Throughput against latency: the frontier of podsim search",
    "energy": "Tokens per joule against latency: the frontier of podsim search",
    "cost": "Dollars per million tokens against latency: the frontier of podsim search",
}
# Paul Tol's colour-blind-safe "bright" scheme, as plot_breakdown.py.
COLOURS = ("#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377", "#BBBBBB")


@dataclass
class Point:
    topology: str
    throughput: float  # tokens/s per chip
    latency_ms: float
    batch: str
    mesh: str
    value: float = None  # what --y draws: throughput, tokens per joule or $ per million tokens


def read_frontier(path, y="throughput"):
    """Returns (points, latency column name) from one frontier CSV, each point's
    value the --y quantity (its throughput by default)."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}") from None
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        raise InputError(f"{path}: empty, not a podsim search frontier")
    header = rows[0]
    latency = next((c for c in LATENCIES if c in header), None)
    missing = [c for c in ("topology", THROUGHPUT, "batch", "mesh") if c not in header]
    if latency is None or missing:
        need = missing + ([] if latency else ["tpot_us or ttft_us"])
        raise InputError(f"{path}: not a podsim search frontier (missing {', '.join(need)})")
    column, _, lower_better, empty_means = Y_KINDS[y]
    if column not in header:
        raise InputError(f"{path}: no '{column}' column for --y {y} (a frontier of podsim "
                         "search from before energy and cost, issue 30?)")
    col = {name: i for i, name in enumerate(header)}
    points = []
    for line, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        where = f"{path}:{line}"
        if len(row) != len(header):
            raise InputError(f"{where}: {len(row)} cells, the header has {len(header)}")
        throughput = number(row[col[THROUGHPUT]], where, THROUGHPUT)
        if y == "throughput":
            value = throughput
        elif row[col[column]] == "":
            raise InputError(f"{where}: '{column}' is empty: {empty_means}")
        else:
            value = number(row[col[column]], where, column)
            if lower_better and value == 0:
                raise InputError(f"{where}: '{column}' must be > 0, got {row[col[column]]}")
        points.append(Point(row[col["topology"]], throughput,
                            number(row[col[latency]], where, latency) / 1000,
                            row[col["batch"]], row[col["mesh"]], value))
    if not points:
        raise InputError(f"{path}: the frontier has no point (no configuration fit)")
    return points, latency


def best_under(points, target_ms, lower_is_better=False):
    """The point with the best value (the highest, or the lowest when lower is
    better) at latency <= target (lowest latency on ties), or None."""
    best = None
    for p in sorted(points, key=lambda q: q.latency_ms):
        if p.latency_ms <= target_ms and (best is None or (
                p.value < best.value if lower_is_better else p.value > best.value)):
            best = p
    return best


def undominated(points, lower_is_better=False):
    """The points, in latency order, that no point of lower or equal latency beats
    or equals in value (the first of equal points kept): a frontier in that value."""
    order = sorted(points, key=lambda q: (q.latency_ms, q.value if lower_is_better else -q.value))
    kept = []
    for p in order:
        if not kept or (p.value < kept[-1].value if lower_is_better else p.value > kept[-1].value):
            kept.append(p)
    return kept


def plot(points, latency, out, title, target_ms, y="throughput"):
    plt = pyplot("plot_frontier")
    _, label, lower_better, _ = Y_KINDS[y]
    fig, ax = plt.subplots(figsize=(9, 5.5))
    slices = list(dict.fromkeys(p.topology for p in points))  # first-seen order
    for i, name in enumerate(slices):
        mine = sorted((p for p in points if p.topology == name), key=lambda p: p.latency_ms)
        colour = COLOURS[i % len(COLOURS)]
        if y == "throughput":
            # As before --y: podsim search's throughput frontier has no dominated point.
            ax.step([p.latency_ms for p in mine], [p.value for p in mine], where="post",
                    color=colour, linewidth=1.2, alpha=0.6)
            ax.plot([p.latency_ms for p in mine], [p.value for p in mine], "o", color=colour,
                    markersize=5, label=name)
        else:
            front = undominated(mine, lower_better)
            ax.step([p.latency_ms for p in front], [p.value for p in front], where="post",
                    color=colour, linewidth=1.2, alpha=0.6)
            ax.plot([p.latency_ms for p in front], [p.value for p in front], "o", color=colour,
                    markersize=5, label=name)
            others = [p for p in mine if not any(p is q for q in front)]
            if others:
                ax.plot([p.latency_ms for p in others], [p.value for p in others], "o",
                        color=colour, markersize=5, fillstyle="none")
        for p in mine:
            ax.annotate(f"b{p.batch}", (p.latency_ms, p.value), textcoords="offset points",
                        xytext=(4, -10), fontsize=7, color="#444444")
    if target_ms is not None:
        ax.axvline(target_ms, color="#777777", linestyle="--", linewidth=1,
                   label=f"target {target_ms:g} ms")
        best = best_under(points, target_ms, lower_better)
        if best is not None:
            ax.plot([best.latency_ms], [best.value], "o", markersize=14, fillstyle="none",
                    color="#000000", label=f"best: {best.mesh}, batch {best.batch}")
    which = "time per output token" if latency == "tpot_us" else "time to first token"
    ax.set_xlabel(f"{which} (ms)")
    ax.set_ylabel(label)
    if y == "cost" and max(p.value for p in points) > COST_LOG_SPAN * min(p.value for p in points):
        ax.set_yscale("log")
    if len(points) > 1 and max(p.latency_ms for p in points) > 20 * min(
            max(p.latency_ms, 1e-9) for p in points):
        ax.set_xscale("log")
    ax.grid(color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title or TITLES[y])
    ax.legend(fontsize=8, frameon=False, loc="best")
    fig.tight_layout()
    save(fig, out)
    plt.close(fig)


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Draws the frontier CSV of podsim search as a PNG chart.",
        epilog="Exit codes: 0 ok, 2 bad input or usage.",
    )
    p.add_argument("input", metavar="CSV", help="podsim search output (the frontier)")
    p.add_argument("--out", metavar="PNG", required=True, help="write the chart here")
    p.add_argument("--title", help="chart title")
    p.add_argument("--target-ms", type=float, metavar="MS",
                   help="latency target: a line, and the best point under it ringed")
    p.add_argument("--y", choices=tuple(Y_KINDS), default="throughput",
                   help="what is drawn against latency: tokens/s per chip (default), "
                        "tokens per joule, or $ per million tokens")
    args = p.parse_args(argv)
    if args.target_ms is not None and not (math.isfinite(args.target_ms) and args.target_ms > 0):
        p.error("--target-ms must be a positive number of milliseconds")
    return args


def main(argv=None):
    args = parse_args(argv)
    try:
        points, latency = read_frontier(args.input, args.y)
    except InputError as e:
        print(f"plot_frontier: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        plot(points, latency, args.out, args.title, args.target_ms, args.y)
    except OSError as e:
        print(f"plot_frontier: cannot write {args.out}: {e.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return 0


if __name__ == "__main__":
    sys.exit(main())
