#!/usr/bin/python3
"""Tests of scripts/plot_capacity.py on a capacity search's CSV
(tests/scripts/data/capacity.csv: `podsim capacity
workloads/serve/llama3-70b-azure-conv.serve.textproto --format csv`).

Exits 77 (CTest's SKIP_RETURN_CODE) when matplotlib is not importable.
"""

import os
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plot_test_support, however run
import plot_test_support as support  # noqa: E402

support.require_matplotlib()
plot = support.load_script("plot_capacity")
PNG_MAGIC = support.PNG_MAGIC
SEARCH = os.path.join(support.DATA, "capacity.csv")


class PlotCapacityTest(support.PlotScriptTest):
    SCRIPT = "plot_capacity"

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
        first = support.read_bytes(a)
        self.assertEqual(first, support.read_bytes(b))
        self.assertEqual(first[:8], PNG_MAGIC)

    def test_reads_the_search_in_order_and_finds_its_capacity(self):
        p, runs = plot.search(SEARCH)
        self.assertEqual(p, "99")
        self.assertEqual(len(runs), 7)
        self.assertFalse(runs[0]["met"])  # the file's own rate, 3.56/s, misses
        self.assertAlmostEqual(runs[0]["ttft_ms"], 3517.541268041)
        # What `podsim capacity` prints for the same file: 3.002 requests/s.
        self.assertAlmostEqual(plot.capacity(runs), 3.002308057510837)

    def test_reads_the_capacity_report_and_its_objectives(self):
        # data/capacity-report.csv: `podsim capacity
        # workloads/serve/llama3-70b-azure-conv.serve.textproto --format csv`, the
        # podsim.output.CapacityReport's columns (issue 32).
        report = os.path.join(support.DATA, "capacity-report.csv")
        found = {}
        p, runs = plot.search(report, found)
        self.assertEqual(p, "99")
        self.assertEqual(found, {"ttft_ms": 1000.0, "tpot_ms": 100.0})
        self.assertFalse(runs[0]["met"])
        self.assertAlmostEqual(plot.capacity(runs), 3.113504652233461)  # answer.rate_per_s
        out = self.path("report.png")
        r = self.run_script(report, "--out", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(support.read_bytes(out)[:8], PNG_MAGIC)

    def test_refuses_a_target_rate_report(self):
        path = self.write("target.csv", "mode,status,reason,objectives.percentile,"
                          "objectives.ttft_ms,objectives.tpot_ms,runs.rate_per_s,runs.ttft_s,"
                          "runs.tpot_s,runs.rejected,runs.meets_slo\n"
                          "target_rate,ok,,99,1000,100,2,0.5,0.02,0,true\n")
        self.assert_refused(path, "not a capacity search")

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
        self.assertEqual(support.read_bytes(out)[:8], PNG_MAGIC)

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
