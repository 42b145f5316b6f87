#!/usr/bin/python3
"""Tests of scripts/plot_serve.py on a small serve run's CSVs
(tests/scripts/data/serve_requests.csv and serve_timeseries.csv: the first rows
of `podsim serve workloads/serve/llama3-70b-azure-conv.serve.textproto
--requests ... --timeseries ...`).

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
SCRIPT = os.path.join(ROOT, "scripts", "plot_serve.py")
REQUESTS = os.path.join(HERE, "data", "serve_requests.csv")
SERIES = os.path.join(HERE, "data", "serve_timeseries.csv")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

sys.dont_write_bytecode = True
spec = importlib.util.spec_from_file_location("plot_serve", SCRIPT)
plot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot)


class PlotServeTest(unittest.TestCase):
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

    def test_draws_a_png_the_same_every_time(self):
        a, b = self.path("a.png"), self.path("b.png")
        for out in (a, b):
            r = self.run_script(REQUESTS, "--timeseries", SERIES, "--out", out)
            self.assertEqual(r.returncode, 0, r.stderr)
        with open(a, "rb") as f:
            first = f.read()
        with open(b, "rb") as f:
            self.assertEqual(first, f.read())
        self.assertEqual(first[:8], PNG_MAGIC)

    def test_latencies_skip_rejected_and_empty_tpot(self):
        csv_path = self.path("r.csv")
        with open(csv_path, "w", encoding="utf-8") as f:
            f.write("request,arrival_s,replica,prompt_tokens,output_tokens,status,queue_delay_s,"
                    "first_token_s,finish_s,ttft_s,tpot_s,e2e_s,preemptions\n"
                    "0,0,r,10,1,ok,0,0.1,0.1,0.1,,0.1,0\n"
                    "1,0,r,10,3,ok,0,0.2,0.4,0.2,0.1,0.4,0\n"
                    "2,0,r,9999,3,rejected,,,0,,,,0\n")
        lat = plot.latencies(csv_path)
        self.assertEqual(lat["ttft_s"], [100.0, 200.0])
        self.assertEqual(lat["tpot_s"], [100.0])
        self.assertEqual(plot.percentile([1, 2, 3, 4], 50), 2)

    def test_bad_input_names_file_and_line_and_writes_nothing(self):
        bad = self.path("bad.csv")
        with open(REQUESTS, encoding="utf-8") as f:
            lines = f.read().splitlines()
        cells = lines[3].split(",")
        cells[9] = "x"  # ttft_s
        lines[3] = ",".join(cells)
        with open(bad, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        out = self.path("none.png")
        r = self.run_script(bad, "--out", out)
        self.assertEqual(r.returncode, 2)
        self.assertIn("bad.csv:4:", r.stderr)
        self.assertFalse(os.path.exists(out))
        r = self.run_script(SERIES, "--out", out)  # a time series is not a request CSV
        self.assertEqual(r.returncode, 2)
        self.assertIn("missing column", r.stderr)


if __name__ == "__main__":
    unittest.main()
