"""What the tests of scripts/plot_*.py share (tests/scripts/plot_*_test.py).

A test imports this module from its own folder (see any plot_*_test.py), calls
require_matplotlib() before anything else, then load_script() for the module
under test, and subclasses PlotScriptTest, which gives each test case a
temporary directory and runs the script as a subprocess.
"""

import importlib.util
import os
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(HERE, "data")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def require_matplotlib():
    """Exits 77 (CTest's SKIP_RETURN_CODE) when matplotlib is not importable."""
    try:
        import matplotlib  # noqa: F401  (only checking it is there)
    except ImportError:
        print(f"SKIP: matplotlib is not importable by {sys.executable} "
              "(install python3-matplotlib: scripts/install-deps.sh)")
        sys.exit(77)


def script_path(name):
    """scripts/NAME.py of this checkout."""
    return os.path.join(ROOT, "scripts", f"{name}.py")


def load_script(name):
    """Imports scripts/NAME.py as a module (scripts/ is not a package)."""
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    spec = importlib.util.spec_from_file_location(name, script_path(name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def png_size(path):
    """The (width, height) of the PNG at path; an AssertionError if it is not a PNG."""
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == PNG_MAGIC, f"{path} is not a PNG: {head[:8]!r}"
    return struct.unpack(">II", head[16:24])  # IHDR width, height


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


class PlotScriptTest(unittest.TestCase):
    """A test case of scripts/SCRIPT.py: SCRIPT is set by the subclass."""

    SCRIPT = None

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        """NAME in this test case's temporary directory."""
        return os.path.join(self.dir, name)

    def write(self, name, text):
        """Writes text to NAME in the temporary directory and returns its path."""
        p = self.path(name)
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)
        return p

    def run_script(self, *args):
        """Runs the script under test with this interpreter; never raises on its exit code."""
        return subprocess.run([sys.executable, script_path(self.SCRIPT), *args],
                              capture_output=True, text=True, check=False)

    def assert_no_partial_output(self):
        """No temporary file of the scripts' atomic writes is left behind."""
        self.assertEqual([n for n in os.listdir(self.dir) if n.startswith(".plot-")], [])
