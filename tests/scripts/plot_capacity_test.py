#!/usr/bin/python3
"""Tests of scripts/plot_capacity.py on a capacity search's CSV
(tests/scripts/data/capacity.csv: `podsim capacity
workloads/serve/llama3-70b-azure-conv.serve.textproto --format csv`).

Exits 77 (CTest's SKIP_RETURN_CODE) when matplotlib is not importable.
"""

import importlib.util
import os
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
SCRIPT = os.path.join(ROOT, "scripts", "plot_capacity.py")
SEARCH = os.path.join(HERE, "data", "capacity.csv")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

sys.dont_write_bytecode = True
spec = importlib.util.spec_from_file_location("plot_capacity", SCRIPT)
plot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot)


class PlotCapacityTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, text):
        p = self.path(name)
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)
        return p

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                              check=False)

    def assert_refused(self, csv_path, message):
        out = self.path("none.png")
        r = self.run_script(csv_path, "--out", out)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(os.path.basename(csv_path), r.stderr)
        self.assertIn(message, r.stderr)
        self.assertFalse(os.path.exists(out))

    def test_draws_a_png_the_same_every_time(self):
        a, b = self.path("a.png"), self.path("b.png")
        for out in (a, b):
            r = self.run_script(SEARCH, "--ttft-ms", "1000", "--tpot-ms", "100", "--out", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stderr, "")
        with open(a, "rb") as f:
            first = f.read()
        with open(b, "rb") as f:
            self.assertEqual(first, f.read())
        self.assertEqual(first[:8], PNG_MAGIC)

    def test_reads_the_search_in_order_and_finds_its_capacity(self):
        p, runs = plot.search(SEARCH)
        self.assertEqual(p, "99")
        self.assertEqual(len(runs), 7)
        self.assertFalse(runs[0]["met"])  # the file's own rate, 3.56/s, misses
        self.assertAlmostEqual(runs[0]["ttft_ms"], 3517.541268041)
        # What `podsim capacity` prints for the same file: 3.002 requests/s.
        self.assertAlmostEqual(plot.capacity(runs), 3.002308057510837)

    def test_another_percentile(self):
        path = self.write("p90.csv", "rate_per_s,ttft_p90_s,tpot_p90_s,completed,rejected,"
                          "meets_slo\n2,0.5,0.02,10,0,yes\n4,0.9,0.03,10,0,no\n")
        p, runs = plot.search(path)
        self.assertEqual(p, "90")
        self.assertEqual(plot.capacity(runs), 2)

    def test_no_rate_met_is_drawn_and_said(self):
        path = self.write("none_met.csv", "rate_per_s,ttft_p99_s,tpot_p99_s,completed,rejected,"
                          "meets_slo\n2,5,0.2,10,0,no\n1,3,0.1,9,1,no\n")
        out = self.path("none_met.png")
        r = self.run_script(path, "--ttft-ms", "1000", "--out", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("none_met.csv: no rate tried met the objectives", r.stderr)
        with open(out, "rb") as f:
            self.assertEqual(f.read(8), PNG_MAGIC)

    def test_bad_input_names_file_and_problem_and_writes_nothing(self):
        self.assert_refused(self.write("empty.csv", ""), "empty")
        self.assert_refused(
            self.write("header.csv", "rate_per_s,ttft_p99_s,tpot_p99_s,completed,rejected,"
                       "meets_slo\n"), "no serve run to plot")
        self.assert_refused(
            self.write("no_tpot.csv", "rate_per_s,ttft_p99_s,completed,rejected,meets_slo\n"
                       "1,0.5,10,0,yes\n"), "missing column(s) tpot_p99_s")
        self.assert_refused(
            self.write("bad_rate.csv", "rate_per_s,ttft_p99_s,tpot_p99_s,completed,rejected,"
                       "meets_slo\n1,0.5,0.01,10,0,yes\nx,0.5,0.01,10,0,yes\n"),
            "bad_rate.csv:3: 'rate_per_s' is not a number")
        self.assert_refused(
            self.write("bad_met.csv", "rate_per_s,ttft_p99_s,tpot_p99_s,completed,rejected,"
                       "meets_slo\n1,0.5,0.01,10,0,maybe\n"), "'meets_slo' must be yes or no")
        self.assert_refused(
            self.write("short.csv", "rate_per_s,ttft_p99_s,tpot_p99_s,completed,rejected,"
                       "meets_slo\n1,0.5,0.01\n"), "short.csv:2: expected 6 cells")
        self.assert_refused(
            self.write("target.csv", "config,chips,rate_per_s,ttft_p99_s,tpot_p99_s,completed,"
                       "rejected,meets_slo\na,16,2,0.5,0.01,10,0,yes\n"), "--target-rate")
        r = self.run_script(SEARCH, "--ttft-ms", "-1", "--out", self.path("neg.png"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("--ttft-ms", r.stderr)


if __name__ == "__main__":
    unittest.main()
