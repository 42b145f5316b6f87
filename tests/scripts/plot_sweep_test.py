#!/usr/bin/python3
"""Tests of scripts/plot_sweep.py on a small sweep CSV (tests/scripts/data/
sweep.csv, written by hand in podsim sweep's columns).

Exits 77 (CTest's SKIP_RETURN_CODE) when matplotlib is not importable.
"""

import os
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plot_test_support, however run
import plot_test_support as support  # noqa: E402

support.require_matplotlib()
plot = support.load_script("plot_sweep")
png_size = support.png_size
CSV = os.path.join(support.DATA, "sweep.csv")


class PlotSweepTest(support.PlotScriptTest):
    SCRIPT = "plot_sweep"

    def test_reads_ok_rows_their_parts_and_the_swept_values(self):
        points, skipped = plot.read_sweep(CSV)
        self.assertEqual(skipped, 1)  # the oom row
        self.assertEqual([p["group"] for p in points],
                         ["decode (tensorcore)", "decode (tensorcore)", "prefill (tensorcore)"])
        self.assertEqual(points[1]["parts"], [40, 10, 5, 10, 5, 15, 5])
        self.assertEqual(sum(points[1]["parts"]), points[1]["step"])
        # Only the override that differs is a swept parameter.
        self.assertEqual(plot.swept(points), ["topology.chip.vmem_bytes"])
        self.assertEqual(plot.shown("topology.chip.vmem_bytes", "33554432"), "32 MiB")
        self.assertEqual(plot.shown("topology.chip.vmem_bytes", "1000"), "1000")

    def test_draws_a_png_the_same_twice(self):
        images = []
        for i in range(2):
            out = self.path(f"s{i}.png")
            r = self.run_script(CSV, "--out", out, "--title", "fixture")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("1 rows not ok were left out", r.stderr)
            width, height = png_size(out)
            self.assertGreater(width, 300)
            self.assertGreater(height, 400)  # two panels: decode and prefill
            images.append(support.read_bytes(out))
        self.assertEqual(images[0], images[1])

    def test_bad_input_exits_2_and_writes_nothing(self):
        with open(CSV, encoding="utf-8") as f:
            text = f.read()
        lines = text.splitlines()
        not_sweep = self.write("run.csv", "model,step_time_us\nX,12\n")
        bad_number = self.write("nan.csv", text.replace(",40,10,", ",lots,10,", 1))
        bad_sum = self.write("sum.csv", text.replace("ok,decode,tensorcore,topology.chip.vmem_bytes="
                                                     "16777216;topology.chip.mxu_count=4,workload."
                                                     "scenario.batch=16,100,",
                                                     "ok,decode,tensorcore,topology.chip.vmem_bytes="
                                                     "16777216;topology.chip.mxu_count=4,workload."
                                                     "scenario.batch=16,120,", 1))
        none_ok = self.write("oom.csv", "\n".join([lines[0], lines[3]]) + "\n")
        empty = self.write("empty.csv", lines[0] + "\n")
        out = self.path("out.png")
        cases = [
            ([not_sweep], "no 'status' column"),
            ([bad_number], "'serving.units.mxu_us' is not a number"),
            ([bad_sum], "the parts add up to 100.0 us, not the step time 120.0 us"),
            ([none_ok], "no row has status ok"),
            ([empty], "no rows"),
            ([self.path("absent.csv")], "cannot read"),
        ]
        for args, message in cases:
            r = self.run_script(*args, "--out", out)
            self.assertEqual(r.returncode, 2, f"{args}: {r.stderr}")
            self.assertIn(message, r.stderr, args)
            self.assertFalse(os.path.exists(out), args)
        self.assert_no_partial_output()


if __name__ == "__main__":
    unittest.main()
