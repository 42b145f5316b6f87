#!/usr/bin/python3
"""Tests of scripts/plot_frontier.py on a small frontier CSV (tests/scripts/data/
frontier.csv, written by hand in podsim search's columns).

Exits 77 (CTest's SKIP_RETURN_CODE) when matplotlib is not importable.
"""

import importlib.util
import os
import struct
import subprocess
import sys
import tempfile
import unittest

try:
    import matplotlib  # noqa: F401  (only checking it is there)
except ImportError:
    print(f"SKIP: matplotlib is not importable by {sys.executable} "
          "(install python3-matplotlib: scripts/install-deps.sh)")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "scripts", "plot_frontier.py")
CSV = os.path.join(HERE, "data", "frontier.csv")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

sys.dont_write_bytecode = True
spec = importlib.util.spec_from_file_location("plot_frontier", SCRIPT)
plot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot)


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == PNG_MAGIC, f"{path} is not a PNG: {head[:8]!r}"
    return struct.unpack(">II", head[16:24])


class PlotFrontierTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                              check=False)

    def test_reads_points_in_milliseconds(self):
        points, latency = plot.read_frontier(CSV)
        self.assertEqual(latency, "tpot_us")
        self.assertEqual([p.topology for p in points],
                         ["tpu-v5e-2x2", "tpu-v5e-2x2", "tpu-v5e-4x4", "tpu-v5e-2x2"])
        self.assertEqual(points[1].throughput, 500)
        self.assertEqual(points[1].latency_ms, 16)
        self.assertEqual(points[3].batch, "64")

    def test_best_under_a_target_is_the_highest_throughput_within_it(self):
        points, _ = plot.read_frontier(CSV)
        self.assertEqual(plot.best_under(points, 21).throughput, 800)
        self.assertEqual(plot.best_under(points, 16).throughput, 500)
        self.assertIsNone(plot.best_under(points, 9.9))

    def test_draws_a_png_the_same_twice(self):
        images = []
        for i in range(2):
            out = self.path(f"f{i}.png")
            r = self.run_script(CSV, "--out", out, "--target-ms", "21", "--title", "fixture")
            self.assertEqual(r.returncode, 0, r.stderr)
            width, height = png_size(out)
            self.assertGreater(width, 300)
            self.assertGreater(height, 200)
            with open(out, "rb") as f:
                images.append(f.read())
        self.assertEqual(images[0], images[1])

    def test_bad_input_exits_2_and_writes_nothing(self):
        not_frontier = self.path("run.csv")
        with open(not_frontier, "w", encoding="utf-8") as f:
            f.write("model,step_time_us\nX,12\n")
        bad_number = self.path("nan.csv")
        with open(CSV, encoding="utf-8") as f:
            text = f.read()
        with open(bad_number, "w", encoding="utf-8") as f:
            f.write(text.replace(",500,", ",lots,", 1))
        empty = self.path("empty.csv")
        with open(empty, "w", encoding="utf-8") as f:
            f.write(text.splitlines()[0] + "\n")
        out = self.path("out.png")
        cases = [
            ([not_frontier], "not a podsim search frontier (missing topology"),
            ([bad_number], "'tokens_per_s_per_chip' is not a number"),
            ([empty], "the frontier has no point"),
            ([self.path("absent.csv")], "cannot read"),
            ([CSV, "--target-ms", "-1"], "--target-ms must be a positive"),
        ]
        for args, message in cases:
            r = self.run_script(*args, "--out", out)
            self.assertEqual(r.returncode, 2, f"{args}: {r.stderr}")
            self.assertIn(message, r.stderr, args)
            self.assertFalse(os.path.exists(out), args)
        self.assertEqual([n for n in os.listdir(self.dir) if n.startswith(".plot-")], [])


if __name__ == "__main__":
    unittest.main()
