"""What differs between the rows of a table of podsim results: the swept parameters.

Shared by plot_sweep.py (a metric against a parameter) and plot_breakdown.py
(labels that name what differs between bars). A parameter is found in:

- the overrides columns (`inputs.topology.overrides`, `inputs.workload.overrides`,
  or any column named `overrides` or ending in `.overrides`, as a sweep over
  serve files writes): `path=value` items separated by `;`, one parameter per
  path, in the order the columns and their items first name them;
- the run options `inputs.run.network` and `inputs.run.compute`;
- the input files `inputs.topology.file`, `inputs.workload.file` (a sweep
  whose parameter is `topology` or `workload`) and `source_file` (a serve
  summary row);
- for an operation-list workload (a row per operation), the operation's name;
- in a `podsim search` frontier CSV (which has a `candidate` column), the
  search's own columns: topology, chips, mesh, ..., batch, micro_batches.

Only the parameters whose value differs between rows count. Parameters that
take the same value at every row (a sweep's `also` paths: the link bandwidth
of both torus dimensions) are one parameter with both paths; parameters in
one-to-one correspondence (zipped, as the matrix units' count and width) are
one compound parameter whose values show each part. Nothing here imports
matplotlib.
"""

import math
import os
import re
from dataclasses import dataclass, field

RUN_OPTIONS = (("inputs.run.network", "network"), ("inputs.run.compute", "compute"))
FILES = (("inputs.topology.file", "topology"), ("inputs.workload.file", "workload"),
         ("source_file", "serve file"))
# podsim search's frontier columns that describe a candidate (docs/search.md, "Output").
# (topology_file is left out: the topology's name stands for it.)
SEARCH = ("topology", "chips", "mesh", "tensor_axes", "tensor_collective",
          "weight_gathered", "kv_layout", "expert_axes", "data_axes", "pipeline_axis", "batch",
          "micro_batches")
BASE = "(base)"  # an override path a row does not set

# Units by the end of a name (the whole name, or its end after a '_'; first
# match wins): the unit an axis label shows, and the family a value is
# rescaled within (a rescaled name loses its suffix: the label gives the unit).
UNITS = (
    ("per_s_per_chip", "/s per chip", None),
    ("j_per_token", "J/token", None),
    ("j_per_output_token", "J/output token", None),
    ("tokens_per_j", "tokens/J", None),
    ("usd_per_m_tokens", "$/M tokens", None),
    ("usd_per_m_output_tokens", "$/M output tokens", None),
    ("gco2e_per_m_tokens", "gCO2e/M tokens", None),
    ("gco2e_per_m_output_tokens", "gCO2e/M output tokens", None),
    ("usd_per_hour", "$/hour", None),
    ("per_s", "/s", None),
    ("gbps", "GB/s", None),
    ("tflops", "TFLOP/s", None),
    ("tops", "TOP/s", None),
    ("bytes", "bytes", "bytes"),
    ("hz", "Hz", "hz"),
    ("watts", "W", None),
    ("w", "W", None),
    ("j", "J", None),
    ("ns", "ns", "time"),
    ("us", "us", "time"),
    ("ms", "ms", "time"),
    ("s", "s", "time"),
)
TIME_SCALE = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


@dataclass
class Param:
    """A parameter that differs between rows: its paths and each row's value."""

    name: str  # for labels and for --x / --facet
    # Every path or column it stands for: first the one of each compound part,
    # then the aliases (paths with the same values as one of those).
    paths: list
    parts: list  # per compound part: the list of each row's value (strings)
    kind: str = "override"  # override, run, file, search, column
    aliases: list = field(default_factory=list)  # names --x/--facet also accept
    categorical: bool = False  # drawn as categories even if its first part is numeric

    def value(self, i):
        """Row i's value as text, compound parts joined by ' / '."""
        return " / ".join(shown(path, part[i], self.kind)
                          for path, part in zip(self.paths, self.parts))

    def numeric(self):
        """Whether the first part is a finite number at every row (the x axis can be numeric)."""
        return not self.categorical and all(as_float(v) is not None for v in self.parts[0])

    def short(self):
        """The name's last part ('batch' of 'workload.scenario.batch'), with the part
        before it when that is indexed ('dims[2].size')."""
        def last(path):
            seg = path.split(".")
            return ".".join(seg[-2:]) if len(seg) > 1 and "[" in seg[-2] else seg[-1]
        return " / ".join(last(p) for p in self.name.split(" / "))


def as_float(text):
    try:
        v = float(text)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def shown(path, value, kind="override"):
    """A parameter's value as a label: files by base name, whole MiB for byte sizes."""
    if value == "" and kind == "override":
        return BASE
    if kind == "file" or path in ("topology_file",):
        return os.path.splitext(os.path.basename(value))[0]
    if path.endswith("_bytes"):
        try:
            b = int(value)
        except ValueError:
            return value
        if b and b % (1 << 20) == 0:
            return f"{b >> 20} MiB"
    return value


def unit_of(name):
    """(name without a rescaled unit's suffix, unit text, family) for a column or path."""
    segments = name.split(".")
    for i in range(len(segments) - 1, -1, -1):
        seg = segments[i]
        for suffix, unit, family in UNITS:
            if seg != suffix and not seg.endswith("_" + suffix):
                continue
            if family:
                segments[i] = seg[: -len(suffix) - 1] if seg != suffix else seg
            elif suffix.startswith("per_s") and seg != suffix:
                # tokens_per_s: tokens/s, the unit names the thing counted
                # (rate_per_s: per second, nothing named).
                thing = seg[: -len(suffix) - 1].split("_")[-1]
                unit = unit if thing == "rate" else thing + unit
            return ".".join(segments), unit, family
    return name, "", None


def display_scale(name, values):
    """(label, factor) to show values of column `name`: a time in the unit that
    keeps its largest value between 1 and 1000, bytes in MiB or GiB, Hz in GHz."""
    stem, unit, family = unit_of(name)
    top = max((abs(v) for v in values), default=0.0)
    if family == "time":
        base = TIME_SCALE[unit]
        for u in ("ns", "us", "ms", "s"):
            if top * base / TIME_SCALE[u] < 1000 or u == "s":
                if top * base / TIME_SCALE[u] >= 1 or u == "ns" or top == 0:
                    return f"{stem} ({u})", base / TIME_SCALE[u]
        return f"{stem} ({unit})", 1.0
    if family == "bytes":
        if values and all(v == int(v) and int(v) % (1 << 20) == 0 for v in values) and top:
            if top >= (1 << 30) and all(int(v) % (1 << 30) == 0 for v in values):
                return f"{stem} (GiB)", 1.0 / (1 << 30)
            return f"{stem} (MiB)", 1.0 / (1 << 20)
        if top >= (1 << 30):
            return f"{stem} (GiB)", 1.0 / (1 << 30)
        return f"{stem} (bytes)", 1.0
    if family == "hz" and top >= 1e9:
        return f"{stem} (GHz)", 1e-9
    return (f"{stem} ({unit})" if unit else stem), 1.0


def overrides_columns(header):
    return [c for c in header if c == "overrides" or c.endswith(".overrides")
            or c.endswith("_overrides")]


def overrides_of(row, columns):
    """A row's overrides as {path: value}, in the columns' order."""
    out = {}
    for column in columns:
        for item in (row.get(column) or "").split(";"):
            if "=" in item:
                path, value = item.split("=", 1)
                out[path.strip()] = value.strip()
    return out


def merged_name(paths):
    """'topology.torus.dims[0,1].link_bandwidth_gbps' for paths differing only in indices."""
    split = [re.split(r"\[(\d+)\]", p) for p in paths]
    if len({len(s) for s in split}) == 1:
        same = all(len({s[k] for s in split}) == 1 for k in range(0, len(split[0]), 2))
        if same:
            out = []
            for k, text in enumerate(split[0]):
                if k % 2 == 0:
                    out.append(text)
                else:
                    seen = []
                    for s in split:
                        if s[k] not in seen:
                            seen.append(s[k])
                    out.append(f"[{','.join(seen)}]")
            return "".join(out)
    prefix = os.path.commonprefix(paths)
    prefix = prefix[: prefix.rfind(".") + 1]
    if prefix and all("." not in p[len(prefix):] for p in paths):
        return prefix + "{" + ",".join(p[len(prefix):] for p in paths) + "}"
    return " = ".join(paths)


def candidates(header, rows):
    """Every parameter source with each row's value, before dropping the constant ones."""
    out = []
    columns = overrides_columns(header)
    per_row = [overrides_of(r, columns) for r in rows]
    order = []
    for o in per_row:
        for k in o:
            if k not in order:
                order.append(k)
    for path in order:
        out.append((path, [o.get(path, "") for o in per_row], "override"))
    for column, name in RUN_OPTIONS:
        if column in header:
            out.append((name, [r.get(column, "") for r in rows], "run"))
    for column, name in FILES:
        if column in header:
            out.append((name, [r.get(column, "") for r in rows], "file"))
    if "op_list.operations.name" in header:  # an operation list: a row per operation
        out.append(("operation", [r.get("op_list.operations.name", "") for r in rows],
                    "operation"))
    if "candidate" in header:  # a podsim search frontier
        for column in SEARCH:
            if column in header:
                out.append((column, [r.get(column, "") for r in rows], "search"))
    return out


def one_to_one(a, b):
    forward, backward = {}, {}
    for x, y in zip(a, b):
        if forward.setdefault(x, y) != y or backward.setdefault(y, x) != x:
            return False
    return True


def find_params(header, rows):
    """The parameters that differ between rows, aliases and zipped ones merged, in order."""
    found = []  # (kind, [(path, values)]) per parameter
    for path, values, kind in candidates(header, rows):
        if len(set(values)) < 2:
            continue
        for k, members in found:
            if k == kind and one_to_one(members[0][1], values):
                members.append((path, values))
                break
        else:
            found.append((kind, [(path, values)]))
    params = []
    for kind, members in found:
        groups = []  # (values, [paths]): aliases share their values
        for path, values in members:
            for g in groups:
                if g[0] == values:
                    g[1].append(path)
                    break
            else:
                groups.append((values, [path]))
        paths = [g[1][0] for g in groups] + [x for g in groups for x in g[1][1:]]
        params.append(Param(name=" / ".join(merged_name(g[1]) for g in groups), paths=paths,
                            parts=[g[0] for g in groups], kind=kind, aliases=list(paths)))
    return params


def column_param(column, rows):
    """A parameter made of any column (for --x / --facet naming a column)."""
    return Param(name=column, paths=[column], parts=[[r.get(column, "") for r in rows]],
                 kind="column", aliases=[column])


def lookup(name, params, header, rows):
    """The parameter --x/--facet NAME names: a parameter, one of its paths, its
    short name, or any column; None if nothing matches."""
    for p in params:
        if name == p.name or name in p.aliases:
            return p
    matches = [p for p in params if name in (p.short(), *(a.split(".")[-1] for a in p.aliases))]
    if len(matches) == 1:
        return matches[0]
    if name in header:
        return column_param(name, rows)
    return None
