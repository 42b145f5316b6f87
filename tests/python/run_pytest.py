"""Runs the Python module's tests with pytest (or, with --script, one
example script), or exits 77 (CTest: skipped) when what they need is
missing: the extension podsim._podsim (built when CMake found pybind11-dev
and python3-dev), pytest or pandas (scripts/install-deps.sh installs all)."""

import importlib
import runpy
import sys


def skip_without(module, why):
    try:
        importlib.import_module(module)
    except ImportError as e:
        print(f"skipped: {why} ({e})")
        sys.exit(77)


skip_without("podsim._podsim", "the podsim extension is not built")
skip_without("pandas", "pandas is not installed (Debian: python3-pandas)")
if sys.argv[1:2] == ["--script"]:
    script = sys.argv[2]
    sys.argv = [script] + sys.argv[3:]
    runpy.run_path(script, run_name="__main__")
    sys.exit(0)
skip_without("pytest", "pytest is not installed (Debian: python3-pytest)")
import pytest  # noqa: E402

sys.exit(pytest.main(sys.argv[1:]))
