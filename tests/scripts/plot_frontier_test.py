#!/usr/bin/python3
"""Tests of scripts/plot_frontier.py on a small frontier CSV (tests/scripts/data/
frontier.csv, written by hand in podsim search's columns).

Exits 77 (CTest's SKIP_RETURN_CODE) when matplotlib is not importable.
"""

import os
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plot_test_support, however run
import plot_test_support as support  # noqa: E402

support.require_matplotlib()
plot = support.load_script("plot_frontier")
png_size = support.png_size
CSV = os.path.join(support.DATA, "frontier.csv")


class PlotFrontierTest(support.PlotScriptTest):
    SCRIPT = "plot_frontier"

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
            images.append(support.read_bytes(out))
        self.assertEqual(images[0], images[1])

    def test_bad_input_exits_2_and_writes_nothing(self):
        not_frontier = self.write("run.csv", "model,step_time_us\nX,12\n")
        with open(CSV, encoding="utf-8") as f:
            text = f.read()
        bad_number = self.write("nan.csv", text.replace(",500,", ",lots,", 1))
        empty = self.write("empty.csv", text.splitlines()[0] + "\n")
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
        self.assert_no_partial_output()


if __name__ == "__main__":
    unittest.main()
