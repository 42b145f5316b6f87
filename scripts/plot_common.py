"""What podsim's plotting scripts share: matplotlib imported late on the Agg
backend (so bad input is reported even where matplotlib is missing), and
figures written whole or not at all, without a timestamp, so the same input
gives the same PNG bytes."""

import math
import os
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
