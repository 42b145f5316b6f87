#!/usr/bin/python3
"""Pictures of podsim results: a stacked step-time breakdown and a link heatmap.

Reads what `podsim run` writes and draws PNG files with matplotlib (Debian's
python3-matplotlib, which installs for /usr/bin/python3, hence the shebang):

  --out-breakdown PNG  one horizontal stacked bar per scenario: compute-bound,
                       memory-bound, exposed collectives and idle, which add up
                       to the step time, with collectives hidden under compute
                       as a thin hatched bar beneath. Scenarios come from
                       serving CSV rows (one per scenario; files concatenated
                       with or without repeated headers) and serving JSON
                       objects (or JSON arrays of them), in input order.
  --out-heatmap PNG    the torus as a grid of chips (x across, y down), each
                       coloured by the max (or mean) utilisation of its outgoing
                       ICI links, from the "link_stats" object that
                       `podsim run --format json --link-stats` adds. A 3D torus
                       gets one panel per z plane; several slices, one panel per
                       slice and plane; --by-direction, one per link direction
                       too (+x, -x, ...), each chip showing that one link.

Exit codes: 0 ok, 2 bad input or usage, or matplotlib missing (the message
names the file and what is wrong; no image is written). Images are written
whole or not at all, with no timestamp or version in them, so equal inputs give
equal files on one machine.

Examples (the README shows their output, docs/*.png):
  scripts/plot_breakdown.py suite.csv --percent --out-breakdown breakdown.png
  scripts/plot_breakdown.py allgather.json --by-direction --out-heatmap link-heatmap.png
"""

import argparse
import csv
import io
import json
import math
import os
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_common import describe, pyplot, save  # noqa: E402  (beside this script)
from sweep_params import find_params  # noqa: E402

EXIT_BAD_INPUT = 2

# The breakdown's parts, in stacking order: (key, legend label, colour).
# Colours from Paul Tol's colour-blind-safe "bright" scheme.
PARTS = (
    ("compute_us", "compute-bound", "#4477AA"),
    ("memory_us", "memory-bound (HBM)", "#66CCEE"),
    ("collective_exposed_us", "exposed collectives", "#EE6677"),
    ("idle_us", "idle / bubbles", "#BBBBBB"),
)
OVERLAPPED = ("collective_overlapped_us", "collectives under compute (not in step)", "#CCBB44")
STEP = "step_time_us"
METRICS = {"utilisation": "utilisation", "busy_fraction": "busy fraction"}


class InputError(Exception):
    """Bad input: the message names the file and the problem."""


# podsim.Result (schema 3) names, flattened to the short names used here.
RESULT_NAMES = {
    "inputs.serving.model.name": "model",
    "inputs.serving.scenario.phase": "phase",
    "inputs.serving.scenario.batch": "batch",
    "inputs.topology.name": "topology",
    "inputs.workload.name": "workload",
}


def dotted(obj, prefix=""):
    """A nested JSON object as {"a.b.c": value}; lists are kept as values."""
    out = {}
    for k, v in obj.items():
        if isinstance(v, dict):
            out.update(dotted(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def flat(row):
    """A result row or object of schema 3 with the short names; older ones as they are."""
    if "serving.step_time_us" not in row and "inputs.topology.name" not in row:
        return row
    out = {short: row[name] for name, short in RESULT_NAMES.items() if name in row}
    for k, v in row.items():
        if k.startswith("serving."):
            out[k[len("serving."):]] = v
    out["status"] = row.get("status", "ok")
    return out


def simulated(row):
    """False for a row that says it did not run (status oom or invalid)."""
    return row.get("status", "ok") == "ok"


@dataclass
class Scenario:
    label: str
    step_us: float
    parts_us: dict  # key of PARTS -> microseconds
    overlapped_us: float
    where: str = ""  # file:line or file[index], for labels no column tells apart
    row: dict = None  # the row or object as read, names in full ("inputs.run.compute")


@dataclass
class LinkStats:
    source: str
    title: str  # "workload on topology"
    shape: list  # torus size per dimension
    slices: int
    window_us: float
    unfolded: bool
    links: list  # dicts as podsim writes them


def number(value, where, key):
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{where}: '{key}' is not a number: {value!r}") from None
    if not math.isfinite(x) or x < 0:
        raise InputError(f"{where}: '{key}' must be a finite number >= 0, got {value!r}")
    return x


def scenario_label(row, fallback):
    """'LLaMA-3-70B decode, batch 512' over 'tpu-v5e-16x16', from what the row has."""
    name = row.get("model") or row.get("workload") or fallback
    head = " ".join(str(x) for x in (name, row.get("phase")) if x)
    if row.get("batch") not in (None, ""):
        head += f", batch {row['batch']}"
    return f"{head}\n{row['topology']}" if row.get("topology") else head


def scenario(row, where, fallback, raw=None):
    missing = [k for k in (STEP, OVERLAPPED[0], *(p[0] for p in PARTS)) if k not in row]
    if missing:
        raise InputError(
            f"{where}: not a serving result of podsim run (missing {', '.join(missing)})"
        )
    return Scenario(
        label=scenario_label(row, fallback),
        step_us=number(row[STEP], where, STEP),
        parts_us={k: number(row[k], where, k) for k, _, _ in PARTS},
        overlapped_us=number(row[OVERLAPPED[0]], where, OVERLAPPED[0]),
        where=where,
        row=raw if raw is not None else row,
    )


def read_csv(path, text):
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or not rows[0]:
        raise InputError(f"{path}: empty CSV")
    header = rows[0]
    out = []
    for line, row in enumerate(rows[1:], start=2):
        if not row or row == header:  # blank line, or the header of a concatenated file
            continue
        if len(row) != len(header):
            raise InputError(f"{path}:{line}: {len(row)} fields, the header has {len(header)}")
        raw = dict(zip(header, row))
        cells = flat(raw)
        if simulated(cells):
            out.append(scenario(cells, f"{path}:{line}", f"row {line}", raw))
    return out


def link_stats(obj, path):
    ls = obj["link_stats"]
    try:
        shape = [int(s) for s in ls["shape"]]
        slices = int(ls.get("slices", 1))
        links = list(ls["links"])
        window = number(ls["window_us"], path, "link_stats.window_us")
    except (KeyError, TypeError, ValueError) as e:
        raise InputError(f"{path}: malformed link_stats ({e!r})") from None
    if not shape or min(shape) < 1 or slices < 1:
        raise InputError(f"{path}: link_stats.shape must be positive sizes, got {ls['shape']!r}")
    names = flat(dotted({k: v for k, v in obj.items() if k != "link_stats"}))
    title = f"{names.get('workload', '?')} on {names.get('topology', '?')}"
    return LinkStats(path, title, shape, slices, window, bool(ls.get("replicas_unfolded")), links)


def read_json(path, text):
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: invalid JSON: {e}") from None
    objects = data if isinstance(data, list) else [data]
    scenarios, stats = [], []
    for i, obj in enumerate(objects):
        where = path if len(objects) == 1 else f"{path}[{i}]"
        if not isinstance(obj, dict):
            raise InputError(f"{where}: expected a JSON object")
        raw = dotted({k: v for k, v in obj.items() if k != "link_stats"})
        row = flat(raw)
        if STEP in row and simulated(row):
            scenarios.append(scenario(row, where, os.path.basename(path), raw))
        if "link_stats" in obj:
            stats.append(link_stats(obj, where))
        if STEP not in row and "link_stats" not in obj:
            raise InputError(f"{where}: neither a serving result (no {STEP}) nor link_stats")
    return scenarios, stats


def read_inputs(paths):
    """All scenarios and link statistics in the inputs, in order."""
    scenarios, stats = [], []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            raise InputError(f"{path}: cannot read: {e}") from None
        if text.lstrip()[:1] in ("{", "["):
            s, l = read_json(path, text)
            scenarios += s
            stats += l
        else:
            scenarios += read_csv(path, text)
    distinguish(scenarios)
    return scenarios, stats


def as_text(value):
    """A cell as text: JSON lists (repeated fields: overrides) joined as the CSV joins them."""
    if isinstance(value, list):
        return ";".join(as_text(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def distinguish(scenarios):
    """Labels that tell every scenario apart: scenarios whose model, phase, batch
    and topology agree (the points of a sweep) gain a line naming what differs
    between them: the swept parameters (scripts/sweep_params.py: overrides, run
    options, input files); for those still alike, up to three other input
    columns that differ between them; for those alike in every input, where
    they were read. Labels that already differ are left as they are."""
    for same in groups_of(scenarios, lambda s: s.label):
        rows = [{k: as_text(v) for k, v in s.row.items()} for s in same]
        header = list(dict.fromkeys(k for r in rows for k in r))
        params = find_params(header, rows)
        extra = {id(s): ", ".join(f"{p.short()} = {p.value(i)}" for p in params)
                 for i, s in enumerate(same)}
        for alike in groups_of(same, lambda s: extra[id(s)]):
            cells = [{k: as_text(v) for k, v in s.row.items()} for s in alike]
            columns = [k for k in header if k.startswith("inputs.")
                       and not k.endswith((".overrides", ".sha256", ".file"))
                       and len({c.get(k, "") for c in cells}) > 1][:3]
            for s, c in zip(alike, cells):
                more = ", ".join(f"{k[len('inputs.'):]} = {c.get(k, '')}" for k in columns)
                extra[id(s)] = ", ".join(x for x in (extra[id(s)], more) if x)
        for alike in groups_of(same, lambda s: extra[id(s)]):
            for s in alike:
                extra[id(s)] = ", ".join(x for x in (extra[id(s)], s.where) if x)
        for s in same:
            s.label = f"{s.label}\n{extra[id(s)]}"


def groups_of(items, key):
    """The groups of two or more items with equal keys, in first-seen order."""
    groups = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return [g for g in groups.values() if len(g) > 1]


DIM_NAMES = ("x", "y", "z")


def dim_name(dim):
    return DIM_NAMES[dim] if dim < len(DIM_NAMES) else f"d{dim}"


def chip_panels(stats, metric="utilisation", reduce="max", link_dim=None, by_direction=False):
    """The heatmap's panels: a list of (title, grid [y][x] of chip figures).

    One panel per z plane (and slice); with by_direction, one per plane and
    link direction (+x, -x, ...), each chip showing that one outgoing link.
    Otherwise a chip's figure is the max (or mean) of `metric` over its
    outgoing ICI links (only those along `link_dim` if given). NaN: no link.
    Chip ids number x fastest, then y, z..., and slices slowest (topo/shape.h).
    """
    size_x = stats.shape[0]
    size_y = stats.shape[1] if len(stats.shape) > 1 else 1
    per_panel = size_x * size_y
    planes = math.prod(stats.shape[2:])
    chips = per_panel * planes * stats.slices
    per_chip = [{} for _ in range(chips)]  # chip -> {(dim, direction): value}
    for link in stats.links:
        if link.get("kind", "ici") != "ici":
            continue
        try:
            src, dim, direction = int(link["src"]), int(link["dim"]), int(link["direction"])
            value = number(link[metric], stats.source, f"links[].{metric}")
        except (KeyError, TypeError, ValueError):
            raise InputError(
                f"{stats.source}: link without src, dim, direction or {metric}: {link!r}"
            ) from None
        if not 0 <= src < chips:
            raise InputError(f"{stats.source}: link source {src} outside the {chips} chips")
        if link_dim is None or dim == link_dim:
            per_chip[src][(dim, direction)] = value

    def figure(chip, key):
        if key is not None:
            return per_chip[chip].get(key, math.nan)
        v = list(per_chip[chip].values())
        if not v:
            return math.nan
        return max(v) if reduce == "max" else sum(v) / len(v)

    keys = [None]
    if by_direction:
        keys = sorted({k for c in per_chip for k in c}, key=lambda k: (k[0], -k[1]))
        if not keys:
            raise InputError(f"{stats.source}: no ICI links to draw")
    panels = []
    for p in range(planes * stats.slices):
        for key in keys:
            grid = [
                [figure(p * per_panel + y * size_x + x, key) for x in range(size_x)]
                for y in range(size_y)
            ]
            title = panel_title(stats, p, planes)
            if key is not None:
                links = f"{'+' if key[1] > 0 else '-'}{dim_name(key[0])} links"
                title = f"{title}, {links}" if title else links
            panels.append((title, grid))
    return panels


def panel_title(stats, panel, planes):
    parts = []
    if stats.slices > 1:
        parts.append(f"slice {panel // planes}")
    rest = panel % planes
    for d, size in enumerate(stats.shape[2:], start=2):
        parts.append(f"{dim_name(d)} = {rest % size}")
        rest //= size
    return ", ".join(parts)


def plot_breakdown(scenarios, out, title, percent, after=None):
    plt = pyplot("plot_breakdown")
    n = len(scenarios)
    longest = max(s.step_us for s in scenarios)
    unit, scale = ("ms", 1e-3) if longest >= 10_000 else ("us", 1.0)
    legend_in = 0.5  # room for the legend below the axes, inches
    height = 1.3 + 0.55 * n + legend_in
    fig, ax = plt.subplots(figsize=(10, height))
    for s_index, s in enumerate(scenarios):
        factor = (100.0 / s.step_us if s.step_us > 0 else 0.0) if percent else scale
        left = 0.0
        for key, label, colour in PARTS:
            width = s.parts_us[key] * factor
            ax.barh(s_index - 0.08, width, 0.56, left=left, color=colour,
                    label=label if s_index == 0 else None)
            left += width
        ax.barh(s_index + 0.3, s.overlapped_us * factor, 0.14, color=OVERLAPPED[2],
                hatch="////", edgecolor="#777733", linewidth=0,
                label=OVERLAPPED[1] if s_index == 0 else None)
        step = s.step_us * scale
        ax.text(left, s_index - 0.08, f"  {step:.4g} {unit}", va="center", fontsize=8)
    ax.set_yticks(range(n), [s.label for s in scenarios], fontsize=8)
    ax.invert_yaxis()  # first input on top
    if percent:
        ax.set_xlim(0, 118)
        ax.set_xticks(range(0, 101, 20))
        ax.set_xlabel("share of step time (%); step time at the end of each bar")
    else:
        ax.set_xlim(0, longest * scale * 1.15)
        ax.set_xlabel(f"time per step ({unit})")
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title or "Where the step time goes (critical chip)")
    fig.legend(loc="lower center", ncol=3, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, legend_in / height, 1, 1))
    save(fig, out)
    if after:
        after(fig)
    plt.close(fig)


def plot_heatmap(stats, out, title, metric, reduce, link_dim, by_direction):
    plt = pyplot("plot_breakdown")
    panels = chip_panels(stats, metric, reduce, link_dim, by_direction)
    planes = math.prod(stats.shape[2:]) * stats.slices
    # A row per plane when split by direction; otherwise planes four to a row.
    cols = len(panels) // planes if by_direction else min(len(panels), 4)
    rows = math.ceil(len(panels) / cols)
    size_x, size_y = stats.shape[0], (stats.shape[1] if len(stats.shape) > 1 else 1)
    cell = min(0.4, 6.0 / (size_x * cols))  # inches per chip
    size = (max(4.5, size_x * cols * cell + 2), size_y * rows * cell + 1.2)
    fig, axes = plt.subplots(rows, cols, squeeze=False, layout="constrained", figsize=size)
    cmap = plt.get_cmap("viridis").copy()
    cmap.set_bad("#eeeeee")
    image = None
    for i, ax in enumerate(axes.flat):
        if i >= len(panels):
            ax.axis("off")
            continue
        name, grid = panels[i]
        image = ax.imshow(grid, cmap=cmap, vmin=0.0, vmax=1.0, origin="upper")
        if size_x * size_y <= 64:  # few chips: print the figures too
            for y, row in enumerate(grid):
                for x, v in enumerate(row):
                    if not math.isnan(v):
                        ax.text(x, y, f"{v:.2f}", ha="center", va="center", fontsize=7,
                                color="white" if v < 0.6 else "black")
        step = 1 if max(size_x, size_y) <= 8 else 4
        ax.set_xticks(range(0, size_x, step))
        ax.set_yticks(range(0, size_y, step))
        ax.tick_params(labelsize=7)
        ax.set_title(name, fontsize=8)
        if i % cols == 0:
            ax.set_ylabel("y (dim 1)", fontsize=8)
        if i // cols == rows - 1:
            ax.set_xlabel("x (dim 0)", fontsize=8)
    along = "" if link_dim is None else f" along {dim_name(link_dim)}"
    what = "of the outgoing link" if by_direction else f"({reduce}) of outgoing ICI links{along}"
    bar = fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.9)
    bar.set_label(f"{METRICS[metric]} {what}", fontsize=8)
    note = f"averaged over {stats.window_us / 1000:.4g} ms"
    if stats.unfolded:
        note += "; folded replicas filled in by symmetry"
    fig.suptitle(f"{title or f'ICI link {METRICS[metric]}: {stats.title}'}\n{note}", fontsize=9)
    save(fig, out)
    plt.close(fig)


MAX_PANELS = 64


def check_heatmap(stats, link_dim, by_direction):
    dims = len(stats.shape)
    if link_dim is not None and not 0 <= link_dim < dims:
        raise InputError(f"--link-dim {link_dim}: the torus has dimensions 0..{dims - 1}")
    panels = math.prod(stats.shape[2:]) * stats.slices * (2 * dims if by_direction else 1)
    if panels > MAX_PANELS:
        raise InputError(
            f"{stats.source}: {panels} heatmap panels is too many to read (at most "
            f"{MAX_PANELS}); drop --by-direction or plot a smaller pod"
        )


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Draws podsim run results (CSV or JSON) as PNG charts.",
        epilog="Exit codes: 0 ok, 2 bad input or usage.",
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="podsim run output: serving CSV or JSON, or JSON with link_stats")
    p.add_argument("--out-breakdown", metavar="PNG", help="write the stacked breakdown chart here")
    p.add_argument("--out-heatmap", metavar="PNG", help="write the link heatmap here")
    p.add_argument("--title", help="chart title (default: derived from the inputs)")
    p.add_argument("--percent", action="store_true",
                   help="breakdown as shares of each step (for steps of very different length)")
    p.add_argument("--metric", choices=sorted(METRICS), default="utilisation",
                   help="heatmap: utilisation (bytes / capacity) or busy_fraction")
    p.add_argument("--reduce", choices=("max", "mean"), default="max",
                   help="heatmap: how a chip's outgoing links are combined")
    p.add_argument("--link-dim", type=int, metavar="D",
                   help="heatmap: only links along torus dimension D (0 = x)")
    p.add_argument("--by-direction", action="store_true",
                   help="heatmap: one panel per link direction (+x, -x, ...) instead of the max")
    p.add_argument("--describe", action="store_true",
                   help="also print what the breakdown chart shows (its labels, bars) on stdout")
    args = p.parse_args(argv)
    if not args.out_breakdown and not args.out_heatmap:
        p.error("nothing to draw: give --out-breakdown and/or --out-heatmap")
    return args


def main(argv=None):
    args = parse_args(argv)
    try:
        scenarios, stats = read_inputs(args.inputs)
        if args.out_breakdown and not scenarios:
            raise InputError("--out-breakdown: no serving scenario in the inputs")
        if args.out_heatmap and len(stats) != 1:
            raise InputError(
                f"--out-heatmap: needs exactly one input with link_stats (podsim run --format "
                f"json --link-stats), found {len(stats)}"
            )
        if args.out_heatmap:
            check_heatmap(stats[0], args.link_dim, args.by_direction)
            chip_panels(stats[0], args.metric, args.reduce, args.link_dim, args.by_direction)
    except InputError as e:
        print(f"plot_breakdown: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    out = args.out_breakdown
    try:
        if args.out_breakdown:
            plot_breakdown(scenarios, args.out_breakdown, args.title, args.percent,
                           describe if args.describe else None)
        out = args.out_heatmap
        if args.out_heatmap:
            plot_heatmap(stats[0], args.out_heatmap, args.title, args.metric, args.reduce,
                         args.link_dim, args.by_direction)
    except OSError as e:
        print(f"plot_breakdown: cannot write {out}: {e.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return 0


if __name__ == "__main__":
    sys.exit(main())
