"""What podsim's plotting scripts share: matplotlib imported late on the Agg
backend (so bad input is reported even where matplotlib is missing), and
figures written whole or not at all, without a timestamp, so the same input
gives the same PNG bytes."""

import math
import os
import re
import sys
import tempfile

EXIT_BAD_INPUT = 2


class InputError(Exception):
    """Bad input: the message names the file and the problem."""


def number(value, where, key):
    """value as a finite float >= 0; an InputError naming `where` and `key` otherwise."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{where}: '{key}' is not a number: {value!r}") from None
    if not math.isfinite(v) or v < 0:
        raise InputError(f"{where}: '{key}' must be a finite number >= 0, got {value}")
    return v


def pyplot(tool):
    """matplotlib.pyplot on the Agg backend; exits 2 naming `tool` when missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"{tool}: matplotlib is not importable by {sys.executable}; install "
              "python3-matplotlib (scripts/install-deps.sh) and run with /usr/bin/python3",
              file=sys.stderr)
        sys.exit(EXIT_BAD_INPUT)
    plt.rcParams["svg.hashsalt"] = "podsim"  # no random ids, should SVG ever be used
    return plt


def save(fig, out):
    """Writes the figure to `out` whole or not at all, without a timestamp."""
    directory = os.path.dirname(os.path.abspath(out))
    fd, tmp = tempfile.mkstemp(prefix=".plot-", suffix=".png", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            fig.savefig(f, format="png", dpi=100, metadata={"Software": None})
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as open() would create it, not mkstemp's 0600
        os.replace(tmp, out)
    except BaseException:
        os.unlink(tmp)
        raise


def _figure(x):
    """A number as a describe() line shows it: up to 6 significant digits."""
    return f"{x:.6g}" if isinstance(x, (int, float)) else str(x)


def describe(fig, stream=None):
    """Prints what the figure shows, read back from its matplotlib artists:
    per panel the title, axis labels and scales, tick labels, each labelled
    line (with its points), each marked line (artists given a gid, as the SLO
    lines: 'slo'), texts and the legend. For --describe, and for tests that
    check what was drawn rather than the pixels. A reader that stops early
    (`| head`) ends the description, not the script: the image is written."""
    try:
        _describe(fig, stream or sys.stdout)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # no second error when Python flushes at exit


def _describe(fig, out):
    # Figure.get_suptitle() is matplotlib 3.8's; Debian 12 has 3.6.
    suptitle = getattr(fig, "_suptitle", None)
    if suptitle is not None:
        print(f"figure: {suptitle.get_text()!r}", file=out)
    for n, ax in enumerate(fig.axes, start=1):
        if not ax.get_visible() or not ax.axison:
            continue
        print(f"panel {n}: {ax.get_title()!r}", file=out)
        print(f"  x: {ax.get_xlabel()!r} {ax.get_xscale()}", file=out)
        print(f"  y: {ax.get_ylabel()!r} {ax.get_yscale()}", file=out)
        for axis, labels in (("x", ax.get_xticklabels()), ("y", ax.get_yticklabels())):
            texts = [_tick(t.get_text()) for t in labels if t.get_text()]
            if texts and (axis == "x" or not all(_is_number(t) for t in texts)):
                print(f"  {axis} ticks: {' | '.join(texts)}", file=out)
        for line in ax.get_lines():
            label = str(line.get_label())
            xs, ys = list(line.get_xdata()), list(line.get_ydata())
            if line.get_gid():
                print(f"  {line.get_gid()} line: {label!r} at x = {_figure(float(xs[0]))}",
                      file=out)
            elif not label.startswith("_"):
                points = f"{len(xs)} points"
                if len(xs) <= 24:
                    points = ", ".join(f"({_figure(float(x))}, {_figure(float(y))})"
                                       for x, y in zip(xs, ys))
                print(f"  line {label!r}: {points}", file=out)
        for text in ax.texts:
            if text.get_text():
                print(f"  text: {text.get_text()!r}", file=out)
        legend = ax.get_legend()
        if legend is not None:
            title = legend.get_title().get_text()
            entries = " | ".join(t.get_text() for t in legend.get_texts())
            print(f"  legend{' ' + repr(title) if title else ''}: {entries}", file=out)


def _tick(text):
    """A tick label as text: log axes' mathtext '$\\mathdefault{10^{3}}$' as 10^{3},
    line breaks as \\n."""
    return re.sub(r"^\$\\mathdefault\{(.*)\}\$$", r"\1", text).replace("\n", "\\n")


def _is_number(text):
    try:
        float(text.replace("\u2212", "-").replace(",", ""))
    except ValueError:
        return False
    return True
