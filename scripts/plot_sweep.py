#!/usr/bin/python3
"""A sweep as a PNG chart: a metric against a swept parameter, faceted by the others.

Reads a CSV with one row per point and draws one column (--y, any numeric
column: default the step time, `serving.step_time_us`, or an operation list's
`op_list.operations.time_us`) against one swept parameter (--x), one line per
value of the other parameters (a legend) and one panel per value of the
--facet parameters. Reads:

- `podsim sweep` output (the columns of `podsim run --format csv`);
- a sweep over serve files (serve summary rows with an overrides column:
  `--y goodput_requests_per_s`, `--y ttft_s.p99`, ...; the default y is then
  the goodput);
- a `podsim search` frontier (`--x batch --y tokens_per_s_per_chip`, or
  `--x tpot_us` for the frontier itself).

The parameters are what differs between rows (scripts/sweep_params.py): the
`--set` overrides (`inputs.topology.overrides`, `inputs.workload.overrides`,
or any `overrides` column), the run options (network, compute), the input
files (topology, workload), an operation list's operation name, and a
frontier's search columns; paths that take the same values at every row (a
sweep's `also`) are one parameter, zipped ones one compound parameter. --x and
--facet take a parameter's name, one of its paths, its last part (`batch`) or
any column. By default x is the first override or run option that varies;
input files and any parameter beyond the first of the others become panels,
that first one the lines. A numeric x is drawn on a numeric axis (logarithmic
when its values are a geometric series), anything else as categories in the
sweep's order; the axes name the column or path and its unit. Rows whose
status is not `ok` are left out, and said so on stderr.

--breakdown draws the chart this script drew before issue 32 instead: one
stacked bar per point, the step time split by unit (scripts/sweep_breakdown.py).

--describe prints what was drawn (panels, axes, ticks, lines and their
points, the legend) on stdout, read back from the figure.

Exit codes: 0 ok, 2 bad input or usage, or matplotlib missing (the message
names the file, the line and what is wrong; no image is written). The image is
written whole or not at all, with no timestamp in it.

Examples (docs/sweeps.md, docs/tensorcore.md):
  podsim sweep workloads/sweeps/llama3-70b-decode-link-bandwidth-x-batch.textproto --out lb.csv
  scripts/plot_sweep.py lb.csv --x batch --out sweep.png
  scripts/plot_sweep.py lb.csv --y serving.tokens_per_s_per_chip --out tps.png
  scripts/plot_sweep.py vmem.csv --breakdown --out vmem.png
"""

import argparse
import csv
import math
import os
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sweep_breakdown  # noqa: E402  (beside this script)
from plot_common import InputError, describe, pyplot, save  # noqa: E402
from sweep_params import Param, as_float, display_scale, find_params, lookup  # noqa: E402

EXIT_BAD_INPUT = 2
# The default --y: the first of these the CSV has.
DEFAULT_Y = ("serving.step_time_us", "step_time_us", "goodput_requests_per_s",
             "op_list.operations.time_us")
MAX_PANELS = 24
MAX_LINES = 21
MAX_TICKS = 12  # at most this many distinct x values: a tick at each
# Paul Tol's colour-blind-safe "bright" scheme, as the other plot scripts;
# past seven lines the marker and dash change too.
COLOURS = ("#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377", "#BBBBBB")
MARKERS = ("o", "s", "^")
DASHES = ("-", "--", ":")


def read_table(path):
    """(header, [(line, row)]) of a CSV; a repeated header (concatenated files) is skipped."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            raw = list(csv.reader(f))
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}") from None
    except (UnicodeDecodeError, csv.Error) as e:
        raise InputError(f"{path}: not a CSV file: {e}") from None
    if not raw or not raw[0]:
        raise InputError(f"{path}: empty (expected the CSV of podsim sweep or search)")
    header = raw[0]
    rows = []
    for line, cells in enumerate(raw[1:], start=2):
        if not cells or cells == header:
            continue
        if len(cells) != len(header):
            raise InputError(f"{path}:{line}: {len(cells)} fields, the header has {len(header)}")
        rows.append((line, dict(zip(header, cells))))
    if not rows:
        raise InputError(f"{path}: no rows (expected the CSV of podsim sweep or search)")
    return header, rows


def ok_rows(header, rows):
    """The rows that ran (status ok; every row of a table without status) and how many did not."""
    if "status" not in header:
        return rows, 0
    kept = [(line, r) for line, r in rows if r["status"] == "ok"]
    return kept, len(rows) - len(kept)


def metric(path, rows, column):
    """Each row's value of `column` as a float; an InputError naming the row otherwise."""
    out = []
    for line, r in rows:
        v = as_float(r[column])
        if v is None:
            why = "is empty" if r[column] == "" else f"is not a number: {r[column]!r}"
            raise InputError(f"{path}:{line}: '{column}' {why}")
        out.append(v)
    return out


def geometric(values):
    """Whether the distinct values are three or more terms of a geometric series."""
    v = sorted(set(values))
    if len(v) < 3 or v[0] <= 0:
        return False
    ratios = [b / a for a, b in zip(v, v[1:])]
    return max(ratios) / min(ratios) <= 1.01


class Chart:
    """What is drawn: the y column, the x parameter, and the line and panel parameters."""

    def __init__(self, path, header, rows, y, x, facets, lines, one_series=False):
        self.path, self.header, self.rows = path, header, rows
        self.y, self.x, self.facets, self.lines = y, x, facets, lines
        # Every row in one series although the parameters differ (a frontier):
        # rows may share an x; they are then drawn as points, unjoined.
        self.one_series = one_series


def names(params):
    return ", ".join(p.name for p in params) or "none"


def choose(path, header, rows, args):
    """The Chart the options ask for, or an InputError saying what is wrong."""
    table = [r for _, r in rows]
    params = find_params(header, table)

    def named(option, name):
        p = lookup(name, params, header, table)
        if p is None:
            raise InputError(f"{path}: {option} {name}: neither a swept parameter (these vary: "
                             f"{names(params)}) nor a column")
        return p

    y = args.y or next((c for c in DEFAULT_Y if c in header), None)
    if y is None:
        raise InputError(f"{path}: no step-time, goodput or operation-time column; name the "
                         "metric with --y COLUMN")
    if y not in header:
        raise InputError(f"{path}: --y {y}: no such column")
    if args.x:
        x = named("--x", args.x)
    else:
        ranked = ([p for p in params if p.kind in ("override", "run")]
                  or [p for p in params if p.kind != "file" and p.numeric()] or params)
        if not ranked:
            raise InputError(f"{path}: no parameter differs between the rows that ran, so there "
                             "is nothing to plot against (name a column with --x)")
        x = ranked[0]
    if len(set(x.parts[0])) < 2:
        raise InputError(f"{path}: --x {args.x}: the same value in every row that ran")
    others = [p for p in params if p.name != x.name]
    if args.facet:
        facets = []
        for name in args.facet:
            p = named("--facet", name)
            if p.name == x.name:
                raise InputError(f"{path}: --facet {name} is the x parameter")
            if all(p.name != q.name for q in facets):
                facets.append(p)
        lines = [p for p in others if all(p.name != f.name for f in facets)]
    else:
        files = [p for p in others if p.kind == "file" or p.name == "topology"]
        rest = [p for p in others if p not in files]
        lines, facets = rest[:1], files + rest[1:]
    chart = Chart(path, header, rows, y, x, facets, lines)
    if args.x and not args.facet and isolated(chart):
        # x named, and no two rows share a line (a frontier, one configuration
        # per row): the rows as one series rather than a panel per point.
        return Chart(path, header, rows, y, x, [], [], one_series=True)
    if not args.x and not args.facet and isolated(chart):
        # Every line a lone point (a zipped sweep whose parameters move together
        # without one-to-one pairs): one category per combination instead.
        everything = [x] + others
        x = Param(name=" / ".join(p.name for p in everything),
                  paths=[q for p in everything for q in p.paths[: len(p.parts)]],
                  parts=[part for p in everything for part in p.parts], kind="override",
                  categorical=True)
        chart = Chart(path, header, rows, y, x, [], [])
    return chart


def isolated(chart):
    """Whether no line of any panel has two points."""
    counts = {}
    for i in range(len(chart.rows)):
        k = (key_of(chart.facets, i), key_of(chart.lines, i))
        counts[k] = counts.get(k, 0) + 1
    return len(chart.facets) + len(chart.lines) > 0 and max(counts.values()) < 2


def key_of(params, i):
    return tuple(p.value(i) for p in params)


def label_of(params, key):
    if len(params) == 1:
        return key[0]
    return ", ".join(f"{p.short()} = {v}" for p, v in zip(params, key))


def layout(chart):
    """{panel key: {line key: [(x, y, row index)]}} in first-seen order, and the y values."""
    ys = metric(chart.path, chart.rows, chart.y)
    panels, seen = {}, {}
    for i, (line, _) in enumerate(chart.rows):
        fk, lk = key_of(chart.facets, i), key_of(chart.lines, i)
        point = (fk, lk, chart.x.value(i))
        if point in seen and not chart.one_series:
            where = "".join(f", {p.name} = {p.value(i)}" for p in chart.facets + chart.lines)
            raise InputError(
                f"{chart.path}:{line}: the same point as line {seen[point]} ({chart.x.name} = "
                f"{chart.x.value(i)}{where}); nothing among the parameters tells them apart "
                "(name one with --facet COLUMN)")
        seen[point] = line
        panels.setdefault(fk, {}).setdefault(lk, []).append((i, ys[i]))
    if len(panels) > MAX_PANELS:
        raise InputError(f"{chart.path}: {len(panels)} panels ({names(chart.facets)}) is too many "
                         f"to read (at most {MAX_PANELS}); choose --x and --facet")
    line_keys = []
    for lines in panels.values():
        for lk in lines:
            if lk not in line_keys:
                line_keys.append(lk)
    if len(line_keys) > MAX_LINES:
        raise InputError(f"{chart.path}: {len(line_keys)} lines ({names(chart.lines)}) is too many "
                         f"to read (at most {MAX_LINES}); move parameters to panels with --facet")
    return panels, line_keys, ys


def wrap(text, width):
    """Long labels (compound parameters) on several lines, broken between words."""
    return textwrap.fill(text, width, break_long_words=False, break_on_hyphens=False)


def draw(chart, out, title, after=None):
    panels, line_keys, ys = layout(chart)
    plt = pyplot("plot_sweep")
    x = chart.x
    numeric = x.numeric()
    rows = chart.rows
    if numeric:
        xs = [as_float(v) for v in x.parts[0]]
        single = len(x.parts) == 1
        xlabel, xfactor = display_scale(x.name if single else x.paths[0], xs)
        if not single:
            xlabel = x.name
        log = geometric(xs)
    else:
        order = []
        for i in range(len(rows)):
            if x.value(i) not in order:
                order.append(x.value(i))
        xlabel, log = x.name, False
    n = len(panels)
    cols = 1 if n == 1 else 2 if n <= 4 else 3
    nrows = math.ceil(n / cols)
    fig, axes = plt.subplots(nrows, cols, squeeze=False,
                             figsize=(8 if cols == 1 else 6 * cols, 4.2 * nrows + 0.6))
    for ax in axes.flat[n:]:
        ax.axis("off")
    for ax, (fk, lines) in zip(axes.flat, panels.items()):
        # Each panel in its own unit: a prefill's seconds beside a decode's milliseconds.
        mine = [y for points in lines.values() for _, y in points]
        ylabel, yfactor = display_scale(chart.y, mine)
        ticks = {}
        for lk, points in lines.items():
            k = line_keys.index(lk)
            if numeric:
                pts = sorted(((xs[i] * xfactor, y * yfactor, i) for i, y in points))
            else:
                pts = sorted(((order.index(x.value(i)), y * yfactor, i) for i, y in points))
            for px, _, i in pts:
                ticks.setdefault(px, x.value(i))
            shared_x = len({p[0] for p in pts}) < len(pts)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color=COLOURS[k % len(COLOURS)],
                    marker=MARKERS[k // len(COLOURS) % len(MARKERS)], markersize=4,
                    linestyle="none" if shared_x else DASHES[k // len(COLOURS) % len(DASHES)],
                    linewidth=1.2,
                    label=label_of(chart.lines, lk) if chart.lines else chart.y)
        if log:
            ax.set_xscale("log", base=2 if all(math.log2(v).is_integer() for v in xs if v > 0)
                          else 10)
        if not numeric:
            ax.set_xticks(range(len(order)), order, fontsize=8,
                          rotation=30 if max(len(t) for t in order) > 12 else 0,
                          ha="right" if max(len(t) for t in order) > 12 else "center")
            ax.set_xlim(-0.5, len(order) - 0.5)
        elif len(set(xs)) <= MAX_TICKS and x.kind != "column":
            ax.minorticks_off()
            where = sorted(ticks)
            text = [f"{v:g}" if len(x.parts) == 1 else ticks[v] for v in where]
            ax.set_xticks(where, text, fontsize=8)
        if all(v >= 0 for v in mine):
            ax.set_ylim(bottom=0, top=max(mine) * yfactor * 1.08 or 1)
        ax.set_xlabel(wrap(xlabel, 100 if cols == 1 else 70))
        ax.set_ylabel(ylabel)
        ax.grid(True, which="major", alpha=0.3)
        if chart.facets:
            ax.set_title(", ".join(f"{p.short()} = {v}" for p, v in zip(chart.facets, fk)),
                         fontsize=9)
        if chart.lines:
            ax.legend(title=" / ".join(p.short() for p in chart.lines), fontsize=7,
                      title_fontsize=7)
    ystem = display_scale(chart.y, ys)[0].rsplit(" (", 1)[0]
    if not title:
        title = f"{ystem} at each point" if x.categorical else f"{ystem} against {x.short()}"
    fig.suptitle(wrap(title, 90), fontsize=11)
    fig.tight_layout()
    save(fig, out)
    if after:
        after(fig)
    plt.close(fig)


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="plot_sweep.py",
        description="Draw a metric of a podsim sweep (or search frontier) against a swept "
                    "parameter as a PNG.",
        epilog="Exit codes: 0 ok, 2 bad input or usage.")
    p.add_argument("input", metavar="CSV", help="podsim sweep output, a sweep of serve files, "
                   "or a podsim search frontier")
    p.add_argument("--out", metavar="PNG", required=True, help="write the chart here")
    p.add_argument("--y", metavar="COLUMN", help="the metric: any numeric column (default: "
                   "serving.step_time_us, step_time_us or goodput_requests_per_s)")
    p.add_argument("--x", metavar="PARAM", help="the parameter across (default: the first "
                   "override or run option that varies)")
    p.add_argument("--facet", metavar="PARAM", action="append",
                   help="one panel per value of PARAM (repeatable); the other parameters "
                        "become lines")
    p.add_argument("--breakdown", action="store_true",
                   help="instead, one stacked bar per point: the step time split by unit")
    p.add_argument("--title", help="chart title")
    p.add_argument("--describe", action="store_true",
                   help="also print what was drawn on stdout")
    args = p.parse_args(argv)
    if args.breakdown and (args.x or args.y or args.facet):
        p.error("--breakdown draws every point's step time by unit: no --x, --y or --facet")
    return args


def main(argv=None):
    try:
        args = parse_args(argv)
    except SystemExit as e:
        return EXIT_BAD_INPUT if e.code else 0
    after = describe if args.describe else None
    try:
        if args.breakdown:
            points, skipped = sweep_breakdown.read_sweep(args.input)
        else:
            header, rows = read_table(args.input)
            rows, skipped = ok_rows(header, rows)
            if not rows:
                raise InputError(f"{args.input}: no row has status ok ({skipped} left out)")
            chart = choose(args.input, header, rows, args)
            layout(chart)  # every check before matplotlib is imported
    except InputError as e:
        print(f"plot_sweep: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if skipped:
        print(f"plot_sweep: {args.input}: {skipped} rows not ok were left out", file=sys.stderr)
    try:
        if args.breakdown:
            sweep_breakdown.plot(points, args.out, args.title, after)
        else:
            draw(chart, args.out, args.title, after)
    except OSError as e:
        print(f"plot_sweep: cannot write {args.out}: {e.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return 0


if __name__ == "__main__":
    sys.exit(main())
