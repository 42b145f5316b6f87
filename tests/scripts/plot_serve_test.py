#!/usr/bin/python3
"""Tests of scripts/plot_serve.py on a small serve run's CSVs
(tests/scripts/data/serve_requests.csv and serve_timeseries.csv: the first rows
of `podsim serve workloads/serve/llama3-70b-azure-conv.serve.textproto
--requests ... --timeseries ...`).

Exits 77 (CTest's SKIP_RETURN_CODE) when matplotlib is not importable.
"""

import os
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plot_test_support, however run
import plot_test_support as support  # noqa: E402

support.require_matplotlib()
plot = support.load_script("plot_serve")
PNG_MAGIC = support.PNG_MAGIC
REQUESTS = os.path.join(support.DATA, "serve_requests.csv")
SERIES = os.path.join(support.DATA, "serve_timeseries.csv")


class PlotServeTest(support.PlotScriptTest):
    SCRIPT = "plot_serve"

    def test_draws_a_png_the_same_every_time(self):
        a, b = self.path("a.png"), self.path("b.png")
        for out in (a, b):
            r = self.run_script(REQUESTS, "--timeseries", SERIES, "--out", out)
            self.assertEqual(r.returncode, 0, r.stderr)
        first = support.read_bytes(a)
        self.assertEqual(first, support.read_bytes(b))
        self.assertEqual(first[:8], PNG_MAGIC)

    def test_latencies_skip_rejected_and_empty_tpot(self):
        csv_path = self.write(
            "r.csv", "request,arrival_s,replica,prompt_tokens,output_tokens,status,queue_delay_s,"
            "first_token_s,finish_s,ttft_s,tpot_s,e2e_s,preemptions\n"
            "0,0,r,10,1,ok,0,0.1,0.1,0.1,,0.1,0\n"
            "1,0,r,10,3,ok,0,0.2,0.4,0.2,0.1,0.4,0\n"
            "2,0,r,9999,3,rejected,,,0,,,,0\n")
        lat = plot.latencies(csv_path)
        self.assertEqual(lat["ttft_s"], [100.0, 200.0])
        self.assertEqual(lat["tpot_s"], [100.0])
        self.assertEqual(plot.percentile([1, 2, 3, 4], 50), 2)

    def test_bad_input_names_file_and_line_and_writes_nothing(self):
        with open(REQUESTS, encoding="utf-8") as f:
            lines = f.read().splitlines()
        cells = lines[3].split(",")
        cells[9] = "x"  # ttft_s
        lines[3] = ",".join(cells)
        bad = self.write("bad.csv", "\n".join(lines) + "\n")
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
