#!/usr/bin/python3
"""The "Simulated against closed form" table of docs/collectives.md.

For each of a fixed list of collectives (CASES below) this script writes a
one-operation workload to a temporary directory, runs

  podsim run -t TOPOLOGY -w WORKLOAD --format json

(the flow model, ideal links) and reads the collective's simulated time and
schedule from the JSON. Independently of the simulation it computes the
collective's closed form from the formulas of docs/collectives.md, with the
topology's figures (size, wraparound, one-way link bandwidth and hop latency
of every dimension) read from `podsim topo FILE --format json`, and which
dimensions are twisted from the topology file's `twists` lines (the JSON only
counts them). It prints a Markdown table of both and their ratio.

Usage (from anywhere; paths default relative to the repository root, the
parent of this script's directory):

  scripts/collectives_table.py                  print the table
  scripts/collectives_table.py --update FILE    replace the table between the
                                                markers in FILE (atomically)
  scripts/collectives_table.py --check FILE     exit 1, with a diff on stderr,
                                                if FILE's table is out of date
  --podsim PATH   the podsim binary (default: build/src/cli/podsim)

Exit codes: 0 ok (or up to date), 1 --check found a difference, 2 podsim
missing or a run failed, or FILE unreadable or without the markers.
Standard library only; podsim's results are deterministic, and so is the
table.
"""

import argparse
import difflib
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_PODSIM = os.path.join(ROOT, "build", "src", "cli", "podsim")
TOPOLOGIES = os.path.join(ROOT, "topologies")
BEGIN = "<!-- collectives-table:begin -->"
END = "<!-- collectives-table:end -->"

EXIT_DIFFERS = 1
EXIT_ERROR = 2

KIB = 1 << 10
MIB = 1 << 20
GIB = 1 << 30

KIND_LABELS = {
    "ALL_GATHER": "all-gather",
    "REDUCE_SCATTER": "reduce-scatter",
    "ALL_REDUCE": "all-reduce",
    "ALL_TO_ALL": "all-to-all",
    "BROADCAST": "broadcast",
    "COLLECTIVE_PERMUTE": "collective permute",
    "SEND": "send",
}


class ScriptError(Exception):
    """A failure the script reports and exits 2 on (the message says what)."""


# ---------------------------------------------------------------------------
# The cases.


@dataclass(frozen=True)
class Case:
    kind: str  # a podsim.CollectiveKind name
    nbytes: int  # V, as docs/inputs.md counts it
    topology: str  # a file of topologies/
    axes: tuple = ()  # the collective's mesh axes, each a tuple of torus dimension names
    algorithm: str = ""  # a podsim.CollectiveAlgorithm name; "" for auto
    root: int = 0  # broadcast
    shift: int = 0  # collective permute
    pair: tuple = ()  # send: (source coordinates, destination coordinates)
    untwist: bool = False  # run on a copy of the topology without its twists


CASES = (
    Case("ALL_GATHER", 1 * GIB, "v5e-16x16.textproto", (("x",),)),
    Case("ALL_REDUCE", 512 * KIB, "v5e-4x4.textproto", (("x", "y"),)),
    Case("ALL_REDUCE", 512 * KIB, "v5e-4x4.textproto", (("x",), ("y",))),
    Case("ALL_REDUCE", 512 * KIB, "v5e-4x4.textproto", (("x", "y"),), algorithm="SNAKE_RING"),
    Case("ALL_REDUCE", 8 * MIB, "v5e-4x4.textproto", (("x", "y"),)),
    # 18 MiB: a multiple of 3 shares x 64 chips x 4 bytes, so every chunk is whole.
    Case("ALL_REDUCE", 18 * MIB, "v4-4x4x4.textproto", (("x", "y", "z"),)),
    Case("REDUCE_SCATTER", 48 * MIB, "v4-4x4x4.textproto", (("x", "y", "z"),)),
    Case("ALL_TO_ALL", 256 * MIB, "v5e-16x16.textproto", (("x",),)),
    Case("ALL_TO_ALL", 3 * GIB, "v4-4x4x4.textproto", (("x", "y", "z"),)),
    Case("ALL_TO_ALL", 64 * MIB, "v5e-4x4.textproto", (("x", "y"),)),
    Case("BROADCAST", 17 * MIB, "v5e-4x4.textproto", (("x",),), root=0),
    Case("BROADCAST", 17 * MIB, "v5e-4x4.textproto", (("x", "y"),), root=0),
    Case("BROADCAST", 17 * MIB, "v5e-4x4.textproto", (("x", "y"),), algorithm="SNAKE_RING", root=0),
    Case("BROADCAST", 64 * MIB, "v4-4x4x4.textproto", (("x",),), root=0),
    Case("BROADCAST", 64 * MIB, "v4-4x4x4.textproto", (("x", "y", "z"),), root=0),
    Case("BROADCAST", 64 * KIB, "v4-4x4x4.textproto", (("x", "y", "z"),), root=0),
    Case("COLLECTIVE_PERMUTE", 16 * MIB, "v5e-16x16.textproto", (("x",),), shift=1),
    Case("SEND", 64 * MIB, "v5e-16x16.textproto", pair=((0, 0), (1, 3))),
    Case("ALL_REDUCE", 256 * MIB, "v5p-8x16x16-twisted.textproto", (("x",),)),
    Case("ALL_REDUCE", 256 * MIB, "v5p-8x16x16-twisted.textproto", (("x",),), untwist=True),
)


def size_label(nbytes):
    for unit, name in ((GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")):
        if nbytes % unit == 0:
            return f"{nbytes // unit} {name}"
    return f"{nbytes} B"


def axis_name(dims):
    return "".join(dims)


def case_label(case):
    head = f"{KIND_LABELS[case.kind]} {size_label(case.nbytes)}"
    if case.kind == "SEND":
        src, dst = case.pair
        return f"{head} ({', '.join(map(str, src))}) to ({', '.join(map(str, dst))})"
    if len(case.axes) == 1:
        over = f"axis [{', '.join(case.axes[0])}]"
    else:
        over = "axes " + ", ".join(f"[{', '.join(a)}]" for a in case.axes)
    extra = []
    if case.kind == "BROADCAST":
        extra.append(f"root {case.root}")
    if case.kind == "COLLECTIVE_PERMUTE":
        extra.append(f"shift {case.shift}")
    if case.algorithm:
        extra.append(case.algorithm)
    return ", ".join([f"{head} over {over}", *extra])


def topology_label(case):
    stem = case.topology.removesuffix(".textproto")
    return f"{stem}, twists removed" if case.untwist else stem


# ---------------------------------------------------------------------------
# The topology's figures.


@dataclass(frozen=True)
class Dim:
    """One torus dimension as the closed forms see it."""

    name: str
    size: int
    wraps: bool  # wraparound, as `podsim topo` reports it
    twisted: bool  # its wrap lands on another line
    w1: float  # bytes/s, one direction of one link
    alpha: float  # seconds per hop

    @property
    def ring(self):
        """A bidirectional ring; otherwise a line (a twisted dimension runs as one)."""
        return self.wraps and not self.twisted


def twisted_dims(topology_text):
    """Indices of the dimensions a topology file's `twists { dim: D ... }` twist."""
    return {int(d) for d in re.findall(r"^\s*twists\s*\{[^}]*?(?<!\w)dim:\s*(\d+)",
                                        topology_text, flags=re.MULTILINE)}


def without_twists(topology_text):
    return "".join(line for line in topology_text.splitlines(keepends=True)
                   if not re.match(r"\s*twists\s*\{", line))


def topology_dims(podsim, path):
    """The dimensions of the topology file at `path`, from `podsim topo --format json`."""
    info = run_json(podsim, ["topo", path, "--format", "json"])
    text = read_text(path)
    twisted = twisted_dims(text)
    try:
        if info["slices"] != 1 or info["failed_links"] != 0:
            raise ScriptError(f"{path}: the closed forms need one slice and no failed links")
        if info["twists"] != len(re.findall(r"^\s*twists\s*\{", text, flags=re.MULTILINE)):
            raise ScriptError(f"{path}: podsim counts {info['twists']} twists, "
                              "the file's single-line `twists {{...}}` entries differ")
        return tuple(
            Dim(name=d["name"], size=int(d["size"]), wraps=bool(d["wraparound"]),
                twisted=i in twisted, w1=float(d["link_bandwidth_gbps"]) * 1e9,
                alpha=float(d["hop_latency_ns"]) * 1e-9)
            for i, d in enumerate(info["dims"]))
    except (KeyError, TypeError, ValueError) as e:
        raise ScriptError(f"podsim topo {path}: unexpected JSON ({e!r})") from None


# ---------------------------------------------------------------------------
# Closed forms (docs/collectives.md), in seconds. A "unit" is what one phase
# runs over: a Dim, or the snake of SNAKE_RING (a Dim of N chips).


def phase_steps(unit):
    """Steps of one phase: a bidirectional ring floor(n/2), a line n - 1."""
    return unit.size // 2 if unit.ring else unit.size - 1


def phase_seconds(unit, chunk):
    """T_phase = s x (c / W1 + alpha); on a balanced even ring (n >= 4) one step of
    each way carries only half of the opposite chip's chunk, the larger half
    ceil(c / 2): (n/2 - 1) x (c / W1 + alpha) + (ceil(c / 2) / W1 + alpha)."""
    n = unit.size
    if unit.ring and n % 2 == 0 and n >= 4:
        return (n // 2 - 1) * (chunk / unit.w1 + unit.alpha) + (
            math.ceil(chunk / 2) / unit.w1 + unit.alpha)
    return phase_steps(unit) * (chunk / unit.w1 + unit.alpha)


def chips(units):
    return math.prod(u.size for u in units)


def equal_sizes(units):
    if len({u.size for u in units}) > 1:
        raise ScriptError("the closed form of several dimensions needs them of equal size, got "
                          + "x".join(str(u.size) for u in units))


def uniform_link(units):
    """(W1, alpha) shared by every unit; the forms with one W1 need that."""
    links = {(u.w1, u.alpha) for u in units}
    if len(links) != 1:
        raise ScriptError(f"the closed form needs one link bandwidth and latency, got {links}")
    return links.pop()


def all_gather_seconds(units, v):
    """h_1 = V / (k N), c_i = h_i, h_{i+1} = h_i x n_i; one share's phases."""
    equal_sizes(units)
    held = v / (len(units) * chips(units))
    total = 0.0
    for u in units:
        total += phase_seconds(u, held)
        held *= u.size
    return total


def reduce_scatter_seconds(units, v):
    """h_1 = V / k, c_i = ceil(h_i / n_i), h_{i+1} = c_i; one share's phases."""
    equal_sizes(units)
    held = v / len(units)
    total = 0.0
    for u in units:
        held = math.ceil(held / u.size)
        total += phase_seconds(u, held)
    return total


def all_reduce_seconds(units, v):
    """The reduce-scatter, then an all-gather retracing it with the same chunks."""
    return 2 * reduce_scatter_seconds(units, v)


def exchange_blocks(unit):
    """B(n): blocks on the busiest directed link when each chip sends one to each other."""
    n = unit.size
    if unit.ring:
        return sum(range(1, (n + 1) // 2)) + (n / 4 if n % 2 == 0 else 0)
    return (n // 2) * ((n + 1) // 2)


def longest_displacement(unit):
    """h_d: the farthest segment along the unit (a ring's opposite chip included)."""
    return unit.size // 2 if unit.ring else unit.size - 1


def longest_whole_displacement(unit):
    """h'_d: the farthest segment carrying whole blocks (an even ring's opposite
    chip gets half a block each way, so it is not the last to land)."""
    return (unit.size - 1) // 2 if unit.ring else unit.size - 1


def all_to_all_seconds(units, v):
    """max_d [(N / n_d) B(n_d) b / W1 + (D_d + h'_d) alpha], b = V / N^2,
    D_d = sum of h_e over the dimensions before d."""
    if any(u.twisted for u in units):
        raise ScriptError("no closed form for an all-to-all over a twisted dimension")
    n = chips(units)
    block = v / n**2
    worst = 0.0
    before = 0.0  # D_d x alpha
    for u in units:
        drain = n / u.size * exchange_blocks(u) * block / u.w1
        worst = max(worst, drain + before + longest_whole_displacement(u) * u.alpha)
        before += longest_displacement(u) * u.alpha
    return worst


MAX_PIECES = 64


def chain_seconds(v, depth, w1, alpha):
    """min over P in [1, 64] of (P - 1 + D) x (ceil(V / P) / W1 + alpha)."""
    return min((p - 1 + depth) * (math.ceil(v / p) / w1 + alpha)
               for p in range(1, min(v, MAX_PIECES) + 1))


def chain_depth(unit, root, split=False):
    """Hops to the farthest chip: a ring floor(n/2) (n - 1 split); a line
    max(r, n - 1 - r)."""
    if unit.ring:
        return unit.size - 1 if split else unit.size // 2
    return max(root, unit.size - 1 - root)


def broadcast_seconds(units, root_coords, v):
    """The faster of whole pieces and, on a tree of rings, each half of V one
    way round every ring; D the sum of the levels' depths."""
    w1, alpha = uniform_link(units)
    whole = chain_seconds(v, sum(chain_depth(u, r) for u, r in zip(units, root_coords)), w1, alpha)
    if v < 2 or not all(u.ring for u in units):
        return whole
    depth = sum(chain_depth(u, r, split=True) for u, r in zip(units, root_coords))
    return min(whole, chain_seconds(v - v // 2, depth, w1, alpha))


def distance(dim, a, b):
    """Hops between coordinates a and b along one untwisted dimension."""
    if dim.twisted:
        raise ScriptError(f"no closed form for a route along the twisted dimension {dim.name}")
    d = abs(a - b)
    return min(d, dim.size - d) if dim.wraps else d


def permute_seconds(unit, v, shift):
    """V / W1 + hops x alpha, when the shifted pairs share no link (a shift of one)."""
    if abs(shift) != 1 or len(unit) != 1:
        raise ScriptError("the permute's closed form is for a shift of 1 along one dimension")
    (dim,) = unit
    return v / dim.w1 + distance(dim, 0, abs(shift)) * dim.alpha


def send_routes(dims, src, dst):
    """Link-disjoint routes: k when the chips differ in k dimensions, 2 when in one
    wraparound dimension exactly half way round, otherwise 1."""
    differ = [(d, a, b) for d, a, b in zip(dims, src, dst) if a != b]
    if len(differ) != 1:
        return len(differ)
    d, a, b = differ[0]
    return 2 if d.ring and 2 * abs(a - b) == d.size else 1


def send_seconds(dims, src, dst, v):
    """V / (routes x W1) + hops x alpha."""
    w1, alpha = uniform_link(dims)
    hops = sum(distance(d, a, b) for d, a, b in zip(dims, src, dst))
    return v / (send_routes(dims, src, dst) * w1) + hops * alpha


def snake_coords(sizes, index):
    """Coordinates of chip `index` of a snake over dimensions of `sizes`, the first fastest."""
    coords = []
    for i in range(len(sizes) - 1, -1, -1):
        below = math.prod(sizes[:i])
        c, index = divmod(index, below)
        if c % 2:
            index = below - 1 - index
        coords.append(c)
    return coords[::-1]


def snake_unit(dims):
    """SNAKE_RING's one unit: N chips in snake order, a ring when its last chip is a
    neighbour of its first, otherwise a line."""
    w1, alpha = uniform_link(dims)
    sizes = [d.size for d in dims]
    n = math.prod(sizes)
    last = snake_coords(sizes, n - 1)
    moved = [(d, c) for d, c in zip(dims, last) if c != 0]
    closes = len(moved) == 1 and (moved[0][1] == 1 or (moved[0][0].ring and
                                                        moved[0][1] == moved[0][0].size - 1))
    return Dim(name="snake", size=n, wraps=closes, twisted=False, w1=w1, alpha=alpha)


def group_units(case, dims):
    """The units the collective runs over: one per dimension of size > 1 under its
    axes (in order), or the one snake of SNAKE_RING."""
    by_name = {d.name: d for d in dims}
    try:
        under = [by_name[name] for axis in case.axes for name in axis]
    except KeyError as e:
        raise ScriptError(f"{case.topology} has no dimension {e}") from None
    under = [d for d in under if d.size > 1]
    return [snake_unit(under)] if case.algorithm == "SNAKE_RING" else under


def closed_form_seconds(case, dims):
    """The case's closed form from the topology's dimensions alone."""
    if case.kind == "SEND":
        return send_seconds(dims, *case.pair, case.nbytes)
    units = group_units(case, dims)
    v = case.nbytes
    if case.kind == "ALL_GATHER":
        return all_gather_seconds(units, v)
    if case.kind == "REDUCE_SCATTER":
        return reduce_scatter_seconds(units, v)
    if case.kind == "ALL_REDUCE":
        return all_reduce_seconds(units, v)
    if case.kind == "ALL_TO_ALL":
        return all_to_all_seconds(units, v)
    if case.kind == "BROADCAST":
        root = snake_coords([u.size for u in units], case.root)
        return broadcast_seconds(units, root, v)
    if case.kind == "COLLECTIVE_PERMUTE":
        return permute_seconds(units, v, case.shift)
    raise ScriptError(f"no closed form for {case.kind}")


# ---------------------------------------------------------------------------
# Running podsim.


def read_text(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise ScriptError(f"{path}: cannot read: {e}") from None


def write_text(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def run_json(podsim, args):
    """Runs podsim with `args` and returns its JSON output."""
    command = [podsim, *args]
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as e:
        raise ScriptError(f"cannot run {podsim}: {e}") from None
    if done.returncode != 0:
        message = done.stderr.strip() or "(it wrote nothing on stderr)"
        raise ScriptError(f"`{' '.join(command)}` failed (exit {done.returncode}):\n{message}")
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError as e:
        raise ScriptError(f"`{' '.join(command)}` did not write JSON: {e}") from None


def quoted(name):
    return json.dumps(name)  # a text-format string: the names are plain ASCII


def quoted_list(names):
    return "[" + ", ".join(quoted(n) for n in names) + "]"


def workload_text(case, dims):
    """A one-operation workload: every dimension in some mesh axis, the case's
    axes as written, the others one axis each."""
    covered = {name for axis in case.axes for name in axis}
    axes = list(case.axes) + [(d.name,) for d in dims if d.name not in covered]
    mesh = "\n".join(f"  axes {{ name: {quoted(axis_name(a))} dims: {quoted_list(a)} }}"
                     for a in axes)
    fields = [f"kind: {case.kind}", f"bytes: {case.nbytes}"]
    if case.axes:
        fields.append(f"axes: {quoted_list([axis_name(a) for a in case.axes])}")
    if case.algorithm:
        fields.append(f"algorithm: {case.algorithm}")
    if case.kind == "BROADCAST" and case.root:
        fields.append(f"root: {case.root}")
    if case.kind == "COLLECTIVE_PERMUTE":
        fields.append(f"shift: {case.shift}")
    if case.kind == "SEND":
        src, dst = case.pair
        fields.append(f"pairs {{ src {{ coords: {list(src)} }} dst {{ coords: {list(dst)} }} }}")
    return ("# proto-file: podsim/workload.proto\n"
            "# proto-message: podsim.Workload\n"
            'name: "collectives-table-case"\n'
            f"mesh {{\n{mesh}\n}}\n"
            "operations {\n"
            '  name: "case"\n'
            f"  collective {{ {' '.join(fields)} }}\n"
            "}\n")


def simulate(podsim, topology, workload):
    """(time in us, schedule) of the workload's one collective on the flow model."""
    result = run_json(podsim, ["run", "-q", "-t", topology, "-w", workload,
                               "--network", "flow", "--format", "json"])
    try:
        operation = result["op_list"]["operations"][0]
        return float(operation["time_us"]), str(operation["collective"]["schedule"])
    except (KeyError, IndexError, TypeError, ValueError) as e:
        raise ScriptError(f"podsim run -w {workload}: no collective in its JSON ({e!r})") from None


@dataclass(frozen=True)
class Row:
    case: str
    topology: str
    schedule: str
    simulated_us: float
    form_us: float


def case_topology(case, workdir, index):
    """The topology file the case runs on (a copy without twists if asked)."""
    path = os.path.join(TOPOLOGIES, case.topology)
    if not case.untwist:
        return path
    copy = os.path.join(workdir, f"case{index}-untwisted.textproto")
    write_text(copy, without_twists(read_text(path)))
    return copy


def rows(podsim):
    out = []
    with tempfile.TemporaryDirectory(prefix="collectives-table-") as workdir:
        for i, case in enumerate(CASES, start=1):
            topology = case_topology(case, workdir, i)
            dims = topology_dims(podsim, topology)
            if case.untwist and any(d.twisted for d in dims):
                raise ScriptError(f"{topology}: twists left after removing them")
            workload = os.path.join(workdir, f"case{i}.textproto")
            write_text(workload, workload_text(case, dims))
            simulated_us, schedule = simulate(podsim, topology, workload)
            out.append(Row(case_label(case), topology_label(case), schedule, simulated_us,
                           closed_form_seconds(case, dims) * 1e6))
    return out


# ---------------------------------------------------------------------------
# The table and the document.

FOOTNOTE = (
    "Closed forms from the sections above, computed from `podsim topo`'s size, "
    "wraparound, one-way link bandwidth W1 and hop latency alpha of each dimension "
    "(never from the simulation): all-gather, reduce-scatter and all-reduce, one "
    "share's phases s x (c / W1 + alpha), s = floor(n/2) on a ring (on an even ring "
    "one step of each way carries half of the opposite chip's chunk, ceil(c / 2)) "
    "and n - 1 on a line or a twisted dimension, reduce-scatter chunks ceil(h / n), "
    "all-reduce twice "
    "the reduce-scatter; `SNAKE_RING` one line (or ring) over the group's N chips; "
    "all-to-all, max_d [(N / n_d) B(n_d) (V / N^2) / W1 + (D_d + h'_d) x alpha]; "
    "broadcast, min over P in [1, 64] of (P - 1 + D) x (ceil(V / P) / W1 + alpha), "
    "split (V / 2 one way round every ring, D = sum of n - 1) where every level is a ring "
    "and that is faster; collective permute, "
    "V / W1 + hops x alpha; send, V / (routes x W1) + hops x alpha."
)


def table(table_rows):
    lines = ["| case | topology | schedule | simulated us | closed form us | sim / form |",
             "|---|---|---|---:|---:|---:|"]
    for r in table_rows:
        lines.append(f"| {r.case} | {r.topology} | {r.schedule} | {r.simulated_us:.2f} | "
                     f"{r.form_us:.2f} | {r.simulated_us / r.form_us:.3f} |")
    return "\n".join(lines) + "\n\n" + FOOTNOTE + "\n"


def split_document(text, path):
    """(before and including BEGIN, the table, END and after)."""
    start = text.find(BEGIN)
    end = text.find(END)
    if start < 0 or end < 0 or end < start or text.count(BEGIN) != 1 or text.count(END) != 1:
        raise ScriptError(f"{path}: needs one {BEGIN} line followed by one {END} line")
    head_end = start + len(BEGIN)
    return text[:head_end], text[head_end:end], text[end:]


def with_table(text, path, body):
    head, _, tail = split_document(text, path)
    return f"{head}\n{body}{tail}"


def write_atomically(path, text):
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".collectives-table-", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def check(path, body):
    """0 if the table in `path` is `body`, else 1 with a diff on stderr."""
    text = read_text(path)
    expected = with_table(text, path, body)
    if text == expected:
        return 0
    diff = difflib.unified_diff(text.splitlines(keepends=True),
                                expected.splitlines(keepends=True),
                                fromfile=path, tofile=f"{path} (regenerated)")
    sys.stderr.write("".join(diff))
    sys.stderr.write(f"{path}: the collectives table is out of date; run "
                     f"scripts/collectives_table.py --update {path}\n")
    return EXIT_DIFFERS


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--podsim", default=DEFAULT_PODSIM,
                   help="the podsim binary (default: build/src/cli/podsim in the repository)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--update", metavar="FILE",
                      help="replace the table between the markers in FILE")
    mode.add_argument("--check", metavar="FILE",
                      help="exit 1 with a diff if FILE's table differs from the generated one")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    try:
        if not (os.path.isfile(args.podsim) and os.access(args.podsim, os.X_OK)):
            raise ScriptError(f"podsim not found or not executable at {args.podsim} "
                              "(build it: cmake --build build --target podsim, or pass --podsim)")
        target = args.update or args.check
        if target:
            split_document(read_text(target), target)  # fail on a bad file before running
        body = table(rows(args.podsim))
        if args.check:
            return check(args.check, body)
        if args.update:
            write_atomically(args.update, with_table(read_text(args.update), args.update, body))
            return 0
        sys.stdout.write(body)
        return 0
    except ScriptError as e:
        print(f"collectives_table.py: {e}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
