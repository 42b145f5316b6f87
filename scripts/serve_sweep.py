#!/usr/bin/python3
"""`podsim serve` over variants of one serve file, into one CSV and a plot.

A serve file has no --set (a field cannot be overridden from the command
line), so this script writes each variant as a copy of the file in a
temporary directory (its relative file names made absolute, so they still
name the same files), runs `podsim serve --format csv` on it, and collects
the summary rows:

  --set FIELD --values V1 V2 ...   the scalar field (its last name, as it
                                   appears in the file: acceptance_rate,
                                   speedup, rate_per_s) given each value
  --variant LABEL [PATTERN=>REPLACEMENT ...]
                                   a series: the file with each regular
                                   expression (Python, DOTALL) replaced; a
                                   variant whose text no longer has FIELD
                                   runs once, as a reference line

Without --variant, the file as it is. The CSV has one row per run: variant,
the field's value (empty for a reference), then the summary's columns
(docs/serving.md, "Outputs"). With --plot, one panel per --y column against
the field, a line per variant (a reference drawn dashed across).

Exit codes: 0 ok; 2 bad input or usage (a pattern that matches nothing, a
field not in the file, a column not in the summary, a podsim run that fails:
its message is shown). Outputs are written whole or not at all.

Example (docs/serve-speculative.png):
  scripts/serve_sweep.py --podsim build/src/cli/podsim \\
      --serve workloads/serve/llama3-70b-speculative.serve.textproto \\
      --set acceptance_rate --values 0 0.5 0.9 \\
      --variant "1B draft, 4 tokens" \\
      --variant "no speculation" 'speculative \\{[^}]*\\}=>' \\
      --csv spec.csv --plot spec.png --y tpot_s.p50 ttft_s.p99
"""

import argparse
import csv
import io
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_common import pyplot, save  # noqa: E402  (beside this script)

EXIT_BAD_INPUT = 2
PATH_FIELDS = ("topology", "workload", "file", "draft_workload", "draft_topology", "ici_topology")
PATH_RE = re.compile(r'(\b(?:%s):\s*")([^"]*)(")' % "|".join(PATH_FIELDS))
# Paul Tol's colour-blind-safe "bright" scheme, as the other plots.
COLOURS = ("#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377", "#BBBBBB")


class InputError(Exception):
    """Bad input: the message names the file and the problem."""


def absolute_paths(text, base_dir):
    """The serve file's text with its relative file names made absolute."""
    def absolute(m):
        path = m.group(2)
        if path and not os.path.isabs(path):
            path = os.path.normpath(os.path.join(base_dir, path))
        return m.group(1) + path + m.group(3)
    return PATH_RE.sub(absolute, text)


def apply_variant(text, substitutions, where):
    """text with each "PATTERN=>REPLACEMENT" applied; each must match."""
    for sub in substitutions:
        if "=>" not in sub:
            raise InputError(f"{where}: '{sub}' is not PATTERN=>REPLACEMENT")
        pattern, replacement = sub.split("=>", 1)
        try:
            new, n = re.subn(pattern, replacement, text, flags=re.DOTALL)
        except re.error as e:
            raise InputError(f"{where}: '{pattern}' is not a regular expression: {e}") from None
        if n == 0:
            raise InputError(f"{where}: '{pattern}' matches nothing in the serve file")
        text = new
    return text


def field_re(field):
    return re.compile(r"(\b%s:\s*)([^\s}\]]+)" % re.escape(field))


def has_field(text, field):
    return len(field_re(field).findall(text)) > 0


def set_field(text, field, value):
    """text with every `FIELD: x` given `value`."""
    return field_re(field).sub(lambda m: m.group(1) + value, text)


def run_serve(podsim, text, name):
    """The summary row (a dict) of `podsim serve` on `text`."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        done = subprocess.run([podsim, "serve", path, "--format", "csv"],
                              capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise InputError(f"podsim serve failed (exit {done.returncode}) on a variant of "
                         f"{name}:\n{done.stderr.strip()}")
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    if len(rows) != 1:
        raise InputError(f"podsim serve printed {len(rows)} summary rows, expected 1")
    return rows[0]


def sweep(podsim, serve, field, values, variants):
    """[(variant label, value or '', summary row)] in variant, then value order."""
    try:
        with open(serve, encoding="utf-8") as f:
            base = absolute_paths(f.read(), os.path.dirname(os.path.abspath(serve)))
    except OSError as e:
        raise InputError(f"{serve}: {e.strerror}") from None
    name = os.path.basename(serve)
    out = []
    for label, subs in variants:
        text = apply_variant(base, subs, f"--variant {label!r}")
        if not has_field(text, field):
            if label == variants[0][0]:
                raise InputError(f"{serve}: no field '{field}' in its first variant ({label!r})")
            out.append((label, "", run_serve(podsim, text, name)))
            continue
        for v in values:
            out.append((label, v, run_serve(podsim, set_field(text, field, v), name)))
    return out


def write_csv(path, field, runs):
    columns = list(runs[0][2].keys())
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["variant", field] + columns)
    for label, value, row in runs:
        w.writerow([label, value] + [row.get(c, "") for c in columns])
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".serve-sweep-", suffix=".csv", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(buf.getvalue())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def read_csv(path):
    """(field, [(variant, value or '', row)]) from a CSV this script wrote."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if not header or len(header) < 3 or header[0] != "variant":
                raise InputError(f"{path}: not a serve_sweep.py CSV (its header starts with "
                                 f"{header[:2] if header else 'nothing'})")
            runs = []
            for line, cells in enumerate(reader, start=2):
                if len(cells) != len(header):
                    raise InputError(f"{path}:{line}: {len(cells)} cells, the header has "
                                     f"{len(header)}")
                runs.append((cells[0], cells[1], dict(zip(header[2:], cells[2:]))))
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from None
    if not runs:
        raise InputError(f"{path}: no rows")
    return header[1], runs


def number(text, where):
    try:
        return float(text)
    except ValueError:
        raise InputError(f"{where}: '{text}' is not a number") from None


def plot(field, runs, ys, out, title=None):
    for y in ys:
        if y not in runs[0][2]:
            raise InputError(f"--y {y}: not a summary column (docs/serving.md, \"Outputs\")")
    plt = pyplot("serve_sweep.py")
    fig, axes = plt.subplots(1, len(ys), figsize=(4.6 * len(ys), 3.8), squeeze=False)
    labels = list(dict.fromkeys(label for label, _, _ in runs))
    for ax, y in zip(axes[0], ys):
        xs_all = [number(v, f"{field}") for _, v, _ in runs if v != ""]
        for i, label in enumerate(labels):
            colour = COLOURS[i % len(COLOURS)]
            pts = [(v, row) for l, v, row in runs if l == label]
            if len(pts) == 1 and pts[0][0] == "":
                ax.axhline(number(pts[0][1][y], y), color=colour, linestyle="--", label=label)
                continue
            xs = [number(v, field) for v, _ in pts]
            ax.plot(xs, [number(row[y], y) for _, row in pts], marker="o", color=colour,
                    label=label)
        if xs_all:
            ax.set_xlim(min(xs_all), max(xs_all))
        ax.set_xlabel(field)
        ax.set_ylabel(y)
        ax.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    save(fig, out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--podsim", default="build/src/cli/podsim")
    p.add_argument("--serve", help="the serve file (omit with --from-csv)")
    p.add_argument("--set", dest="field")
    p.add_argument("--values", nargs="+", default=[])
    p.add_argument("--variant", nargs="+", action="append", metavar="LABEL [PATTERN=>REPL]")
    p.add_argument("--csv", help="write the runs' summaries here")
    p.add_argument("--from-csv", help="plot a CSV this script wrote instead of running")
    p.add_argument("--plot", help="write a PNG here")
    p.add_argument("--y", nargs="+", default=["ttft_s.p99", "tpot_s.p99"])
    p.add_argument("--title")
    a = p.parse_args(argv)
    try:
        if a.from_csv:
            field, runs = read_csv(a.from_csv)
        else:
            if not a.serve or not a.field or not a.values:
                raise InputError("give --serve, --set and --values (or --from-csv)")
            variants = [(v[0], v[1:]) for v in (a.variant or [["as given"]])]
            field = a.field
            runs = sweep(a.podsim, a.serve, field, a.values, variants)
            if a.csv:
                write_csv(a.csv, field, runs)
        if a.plot:
            plot(field, runs, a.y, a.plot, a.title)
    except InputError as e:
        print(f"serve_sweep.py: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return 0


if __name__ == "__main__":
    sys.exit(main())
