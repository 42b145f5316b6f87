"""plot_sweep.py --breakdown: each point of a `podsim sweep` as a stacked bar,
the step time split by where it went.

For each workload and compute model in the sweep, one stacked bar per point:
the step time's compute and memory time by unit (matrix units, vector unit,
issue, DMA wait, op overhead: the `serving.units.*` columns), then exposed
collectives and idle. The seven parts add up to the step time
(`docs/outputs.md`, "Unit breakdown"), which is written above each bar, so the
chart shows what a knob moved as well as how far. The points are labelled by
the swept values: the `--set` overrides (`inputs.topology.overrides`,
`inputs.workload.overrides`) whose value differs between rows, in the sweep's
order, byte sizes in MiB. Rows whose status is not `ok` are left out (the
caller says so on stderr).
"""

import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_common import InputError, number, pyplot, save  # noqa: E402  (beside this script)

STEP = "serving.step_time_us"
# The parts of a step, in stacking order; they add up to the step time.
PARTS = (
    ("serving.units.mxu_us", "matrix units"),
    ("serving.units.vector_us", "vector unit"),
    ("serving.units.issue_us", "issue"),
    ("serving.units.dma_wait_us", "DMA wait"),
    ("serving.units.overhead_us", "op overhead"),
    ("serving.collective_exposed_us", "exposed collectives"),
    ("serving.idle_us", "idle"),
)
OVERRIDES = ("inputs.topology.overrides", "inputs.workload.overrides")
# Paul Tol's colour-blind-safe "bright" scheme, as the other plot scripts.
COLOURS = ("#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377", "#BBBBBB")
# The parts may miss the step time by the rounding of each to a microsecond
# figure in the CSV; more than this is not a podsim sweep's row.
SUM_TOLERANCE = 1e-6


def overrides_of(row):
    """The row's --set overrides as {path: value}, topology's then workload's."""
    out = {}
    for column in OVERRIDES:
        for item in (row.get(column) or "").split(";"):
            if "=" in item:
                path, value = item.split("=", 1)
                out[path.strip()] = value.strip()
    return out


def read_sweep(path):
    """The ok rows of a sweep CSV as dicts with 'parts', 'step', 'group',
    'overrides', and the count of rows left out."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}") from None
    except (UnicodeDecodeError, csv.Error) as e:
        raise InputError(f"{path}: not a CSV file: {e}") from None
    if not rows:
        raise InputError(f"{path}: no rows (expected the CSV of `podsim sweep`)")
    for key in ("status", STEP) + tuple(k for k, _ in PARTS):
        if key not in rows[0]:
            raise InputError(f"{path}: no '{key}' column: not the serving CSV of a `podsim "
                             "sweep` with result schema 13 or later")
    points = []
    skipped = 0
    for i, row in enumerate(rows, start=2):
        if row["status"] != "ok":
            skipped += 1
            continue
        where = f"{path}:{i}"
        step = number(row[STEP], where, STEP)
        parts = [number(row[k], where, k) for k, _ in PARTS]
        if abs(sum(parts) - step) > SUM_TOLERANCE * max(step, 1.0) + 1e-3:
            raise InputError(f"{where}: the parts add up to {sum(parts)} us, not the step "
                             f"time {step} us")
        group = row.get("inputs.workload.name", "")
        compute = row.get("inputs.run.compute", "")
        points.append({"step": step, "parts": parts, "overrides": overrides_of(row),
                       "group": f"{group} ({compute})" if compute else group})
    if not points:
        raise InputError(f"{path}: no row has status ok ({skipped} left out)")
    return points, skipped


def swept(points):
    """The override paths whose values differ between points, in first-seen order."""
    paths = []
    for p in points:
        for k in p["overrides"]:
            if k not in paths:
                paths.append(k)
    return [k for k in paths if len({p["overrides"].get(k) for p in points}) > 1]


def shown(path, value):
    """A swept value as a label: byte sizes in MiB when whole."""
    if path.endswith("_bytes"):
        try:
            b = int(value)
        except ValueError:
            return value
        if b % (1 << 20) == 0:
            return f"{b >> 20} MiB"
    return value


def plot(points, out, title, after=None):
    """Draws the bars and writes `out`; after(fig), if given, sees the figure before it closes."""
    plt = pyplot("plot_sweep")
    paths = swept(points)
    groups = []
    for p in points:
        if p["group"] not in groups:
            groups.append(p["group"])
    fig, axes = plt.subplots(len(groups), 1, figsize=(8, 3.2 * len(groups) + 0.8), squeeze=False)
    for ax, group in zip(axes[:, 0], groups):
        mine = [p for p in points if p["group"] == group]
        scale, unit = (1e-3, "ms") if max(p["step"] for p in mine) >= 1000 else (1.0, "us")
        labels = [" / ".join(shown(k, p["overrides"].get(k, "-")) for k in paths) or "base"
                  for p in mine]
        x = range(len(mine))
        bottom = [0.0] * len(mine)
        for j, (_, name) in enumerate(PARTS):
            heights = [p["parts"][j] * scale for p in mine]
            ax.bar(x, heights, bottom=bottom, color=COLOURS[j], label=name, width=0.6)
            bottom = [b + h for b, h in zip(bottom, heights)]
        top = max(bottom) if bottom else 0
        for i, p in enumerate(mine):
            ax.text(i, bottom[i] + 0.01 * top, f"{p['step'] * scale:,.3f}", ha="center",
                    va="bottom", fontsize=8)
        ax.set_xticks(list(x))
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_ylabel(f"step time ({unit})")
        ax.set_ylim(0, top * 1.12 if top > 0 else 1)
        ax.set_title(group, fontsize=10)
        ax.set_xlabel(" / ".join(paths) if paths else "")
    axes[0, 0].legend(fontsize=7, ncol=4, loc="lower center", bbox_to_anchor=(0.5, 1.12))
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    save(fig, out)
    if after:
        after(fig)
    plt.close(fig)
