#!/usr/bin/python3
"""Tests of scripts/plot_frontier.py on small frontier CSVs (tests/scripts/data/
frontier.csv, written by hand in podsim search's columns, and frontier_energy.csv,
the same points with the energy and cost columns podsim search appends since
issue 30).

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
ENERGY_CSV = os.path.join(support.DATA, "frontier_energy.csv")


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

    def test_reads_the_energy_and_cost_columns(self):
        points, _ = plot.read_frontier(ENERGY_CSV, "energy")
        self.assertEqual([p.value for p in points], [2, 4, 5, 3.5])  # tokens_per_j
        self.assertEqual(points[3].throughput, 800)
        points, _ = plot.read_frontier(ENERGY_CSV, "cost")
        self.assertEqual([p.value for p in points], [1, 0.4, 0.3, 0.45])  # usd_per_m_tokens
        points, _ = plot.read_frontier(ENERGY_CSV)
        self.assertEqual([p.value for p in points], [200, 500, 700, 800])  # throughput

    def test_best_under_a_target_by_energy_and_by_cost(self):
        # By hand: under 21 ms are a-0 (10 ms), a-1 (16 ms) and a-3 (20 ms); b-2 is 22.86 ms.
        points, _ = plot.read_frontier(ENERGY_CSV, "energy")
        self.assertEqual(plot.best_under(points, 21).batch, "32")  # a-1: 4 tokens/J > 3.5 > 2
        self.assertEqual(plot.best_under(points, 25).batch, "64")  # b-2: 5 tokens/J
        self.assertEqual(plot.best_under(points, 25).topology, "tpu-v5e-4x4")
        self.assertIsNone(plot.best_under(points, 9.9))
        points, _ = plot.read_frontier(ENERGY_CSV, "cost")
        best = plot.best_under(points, 21, lower_is_better=True)
        self.assertEqual(best.value, 0.4)  # a-1: $0.40 < $0.45 (a-3) < $1 (a-0)
        self.assertEqual(plot.best_under(points, 25, lower_is_better=True).value, 0.3)  # b-2

    def test_a_throughput_frontier_need_not_be_one_in_energy_or_cost(self):
        # a-3 (20 ms) has more tokens/s than a-1 (16 ms) but fewer tokens per
        # joule and more dollars per million tokens: off the staircase.
        for y, lower in (("energy", False), ("cost", True)):
            points, _ = plot.read_frontier(ENERGY_CSV, y)
            slice_2x2 = [p for p in points if p.topology == "tpu-v5e-2x2"]
            self.assertEqual([p.batch for p in plot.undominated(slice_2x2, lower)], ["8", "32"], y)
        points, _ = plot.read_frontier(ENERGY_CSV)
        slice_2x2 = [p for p in points if p.topology == "tpu-v5e-2x2"]
        self.assertEqual(len(plot.undominated(slice_2x2)), 3)

    def test_default_is_throughput_and_ignores_the_new_columns(self):
        # The energy and cost columns do not change the throughput chart, nor does
        # naming --y throughput: the same bytes as the chart of frontier.csv.
        runs = [(CSV,), (ENERGY_CSV,), (ENERGY_CSV, "--y", "throughput")]
        images = []
        for i, args in enumerate(runs):
            out = self.path(f"t{i}.png")
            r = self.run_script(*args, "--out", out, "--target-ms", "21")
            self.assertEqual(r.returncode, 0, r.stderr)
            images.append(support.read_bytes(out))
        self.assertEqual(images[1], images[0])
        self.assertEqual(images[2], images[0])

    def test_draws_energy_and_cost_the_same_twice(self):
        default = self.path("default.png")
        self.assertEqual(self.run_script(ENERGY_CSV, "--out", default).returncode, 0)
        for y in ("energy", "cost"):
            images = []
            for i in range(2):
                out = self.path(f"{y}{i}.png")
                r = self.run_script(ENERGY_CSV, "--y", y, "--out", out, "--target-ms", "21")
                self.assertEqual(r.returncode, 0, r.stderr)
                width, height = png_size(out)
                self.assertGreater(width, 300)
                self.assertGreater(height, 200)
                images.append(support.read_bytes(out))
            self.assertEqual(images[0], images[1], y)
            self.assertNotEqual(images[0], support.read_bytes(default), y)

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
            ([CSV, "--y", "watts"], "invalid choice: 'watts'"),
        ]
        for args, message in cases:
            r = self.run_script(*args, "--out", out)
            self.assertEqual(r.returncode, 2, f"{args}: {r.stderr}")
            self.assertIn(message, r.stderr, args)
            self.assertFalse(os.path.exists(out), args)
        self.assert_no_partial_output()

    def test_energy_or_cost_missing_or_empty_exits_2_and_writes_nothing(self):
        with open(ENERGY_CSV, encoding="utf-8") as f:
            text = f.read()
        lines = text.splitlines()
        # A frontier without a pricing file: the last two cells of each row empty.
        unpriced = self.write("unpriced.csv", "\n".join(
            [lines[0]] + [line.rsplit(",", 2)[0] + ",," for line in lines[1:]]) + "\n")
        # A chip without a power model: no energy cells on the second row.
        no_power = self.write("nopower.csv", text.replace(",,0.25,4,500,", ",,,,,", 1))
        bad_number = self.write("nan.csv", text.replace(",0.45,6", ",lots,6", 1))
        free = self.write("free.csv", text.replace(",0.45,6", ",0,6", 1))
        out = self.path("out.png")
        cases = [
            ([CSV, "--y", "energy"], "frontier.csv: no 'tokens_per_j' column for --y energy"),
            ([CSV, "--y", "cost"], "frontier.csv: no 'usd_per_m_tokens' column for --y cost"),
            ([unpriced, "--y", "cost"], "unpriced.csv:2: 'usd_per_m_tokens' is empty: not priced"),
            ([no_power, "--y", "energy"], "nopower.csv:3: 'tokens_per_j' is empty: no power model"),
            ([bad_number, "--y", "cost"], "nan.csv:5: 'usd_per_m_tokens' is not a number"),
            ([free, "--y", "cost"], "free.csv:5: 'usd_per_m_tokens' must be > 0"),
        ]
        for args, message in cases:
            r = self.run_script(*args, "--out", out)
            self.assertEqual(r.returncode, 2, f"{args}: {r.stderr}")
            self.assertIn(message, r.stderr, args)
            self.assertFalse(os.path.exists(out), args)
        # Cells --y does not draw may be empty: throughput and energy of the unpriced file.
        for y in ("throughput", "energy"):
            r = self.run_script(unpriced, "--y", y, "--out", out)
            self.assertEqual(r.returncode, 0, f"{y}: {r.stderr}")
        self.assert_no_partial_output()


if __name__ == "__main__":
    unittest.main()
