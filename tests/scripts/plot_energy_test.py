#!/usr/bin/python3
"""Tests of scripts/plot_energy.py on a small sweep CSV (tests/scripts/data/
energy.csv, written by hand in podsim sweep's columns: one workload, 'tiny', in
decode and prefill, bf16 and int8 weights, chip clock 0.5 to 1.25, and one
invalid row).

Exits 77 (CTest's SKIP_RETURN_CODE) when matplotlib is not importable.
"""

import os
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plot_test_support, however run
import plot_test_support as support  # noqa: E402

support.require_matplotlib()
plot = support.load_script("plot_energy")
png_size = support.png_size
CSV = os.path.join(support.DATA, "energy.csv")
X = "inputs.topology.chip.power.clock_factor"
DTYPE = "inputs.serving.model.weight_dtype"


def by(points, group, series):
    return [p for p in points if p.group == group and p.series == series]


class PlotEnergyTest(support.PlotScriptTest):
    SCRIPT = "plot_energy"

    def test_groups_by_workload_and_phase_and_series(self):
        points, skipped = plot.read_sweep(CSV, X, DTYPE)
        self.assertEqual(skipped, 1)  # the invalid row
        # One name in two phases: a panel per phase.
        self.assertEqual(plot.in_order(p.group for p in points), ["tiny (decode)", "tiny (prefill)"])
        self.assertEqual(plot.in_order(p.series for p in points), ["bf16", "int8"])
        self.assertEqual([p.x for p in by(points, "tiny (decode)", "int8")], [0.5, 0.75, 1, 1.25])
        self.assertEqual([p.metric for p in by(points, "tiny (decode)", "bf16")],
                         [0.13, 0.11, 0.12, 0.14])
        # Decode's latency is its TPOT, prefill's its TTFT, in milliseconds.
        decode = by(points, "tiny (decode)", "bf16")[0]
        self.assertEqual((decode.latency, decode.latency_ms), ("serving.tpot_us", 25))
        prefill = by(points, "tiny (prefill)", "int8")[1]
        self.assertEqual((prefill.latency, prefill.latency_ms), ("serving.ttft_us", 440))
        self.assertEqual(prefill.line, 14)
        # Without --series, one line per panel.
        points, _ = plot.read_sweep(self.write("bf16.csv", self.bf16_only()), X)
        self.assertEqual(plot.in_order(p.series for p in points), [""])

    def bf16_only(self):
        with open(CSV, encoding="utf-8") as f:
            return "".join(line for line in f if ",int8," not in line)

    def test_lowest_energy_under_the_target_by_hand(self):
        points, _ = plot.read_sweep(CSV, X, DTYPE)
        decode_bf16 = by(points, "tiny (decode)", "bf16")
        decode_int8 = by(points, "tiny (decode)", "int8")
        # bf16 under 22 ms: 0.75 (110 mJ, 21 ms), 1 (120 mJ), 1.25 (140 mJ); 0.5 is 25 ms.
        self.assertEqual(plot.lowest_under(decode_bf16, 22).x, 0.75)
        # int8's lowest energy, 95 mJ at 0.75, takes 24 ms: under 22 ms it is 1
        # (105 mJ at 19 ms; 1.25 is 125 mJ). Under 30 ms it is 0.75; 0.5 is 31 ms.
        self.assertEqual(plot.lowest_under(decode_int8, 22).x, 1)
        self.assertEqual(plot.lowest_under(decode_int8, 30).x, 0.75)
        self.assertEqual(plot.lowest_under(decode_int8, 31).x, 0.75)  # <= target
        self.assertIsNone(plot.lowest_under(decode_int8, 18.9))
        # Prefill's TTFT (440 ms and more) is over any decode target.
        self.assertIsNone(plot.lowest_under(by(points, "tiny (prefill)", "bf16"), 22))
        # Dollars: 1 and 1.25 both $0.40 at 20 ms, the smaller x taken.
        points, _ = plot.read_sweep(CSV, X, DTYPE, "usd_per_m_tokens")
        best = plot.lowest_under(by(points, "tiny (decode)", "bf16"), 22)
        self.assertEqual((best.x, best.metric), (1, 0.4))

    def test_says_which_lines_have_no_point_under_the_target(self):
        points, _ = plot.read_sweep(CSV, X, DTYPE)
        notes = plot.notes_without_point(points, 22, "e.csv")
        self.assertEqual(notes, [
            "e.csv: tiny (prefill) bf16: no point has time to first token <= 22 ms "
            "(the lowest is 450.000 ms); none marked",
            "e.csv: tiny (prefill) int8: no point has time to first token <= 22 ms "
            "(the lowest is 440.000 ms); none marked"])
        r = self.run_script(CSV, "--x", X, "--series", DTYPE, "--target-ms", "22",
                            "--out", self.path("t.png"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("1 rows not ok were left out", r.stderr)
        for note in plot.notes_without_point(points, 22, CSV):
            self.assertIn(f"plot_energy: {note}\n", r.stderr)

    def test_draws_a_png_the_same_twice(self):
        for metric in ("j_per_token", "usd_per_m_tokens"):
            images = []
            for i in range(2):
                out = self.path(f"e{i}.png")
                r = self.run_script(CSV, "--x", X, "--series", DTYPE, "--target-ms", "22",
                                    "--metric", metric, "--out", out, "--title", "fixture")
                self.assertEqual(r.returncode, 0, r.stderr)
                width, height = png_size(out)
                self.assertGreater(width, 300)
                self.assertGreater(height, 400)  # two panels: decode and prefill
                images.append(support.read_bytes(out))
            self.assertEqual(images[0], images[1], metric)
        self.assert_no_partial_output()

    def test_bad_input_exits_2_and_writes_nothing(self):
        with open(CSV, encoding="utf-8") as f:
            text = f.read()
        lines = text.splitlines()
        not_sweep = self.write("run.csv", "model,step_time_us\nX,12\n")
        # Line 3 (decode bf16 at 0.75) without a power model.
        no_power = self.write("nopower.csv", text.replace(",16,true,1.76,", ",16,false,1.76,", 1))
        unpriced = self.write("unpriced.csv", text.replace(",true,0.42,", ",false,0.42,", 1))
        bad_number = self.write("nan.csv", text.replace(",0.11,", ",lots,", 1))
        no_latency = self.write("nolat.csv", text.replace(",21000,21000,0,", ",21000,0,0,", 1))
        none_ok = self.write("oom.csv", "\n".join([lines[0], lines[4]]) + "\n")
        empty = self.write("empty.csv", lines[0] + "\n")
        out = self.path("out.png")
        cases = [
            ([not_sweep, "--x", X], "run.csv: no 'status' column"),
            ([no_power, "--x", X, "--series", DTYPE], "nopower.csv:3: no power model"),
            ([unpriced, "--x", X, "--series", DTYPE, "--metric", "usd_per_m_tokens"],
             "unpriced.csv:3: not priced"),
            ([bad_number, "--x", X, "--series", DTYPE],
             "nan.csv:3: 'serving.energy.j_per_token' is not a number"),
            ([no_latency, "--x", X, "--series", DTYPE], "nolat.csv:3: no per-token latency"),
            ([CSV, "--x", "inputs.topology.chip.clock", "--series", DTYPE],
             "energy.csv: no 'inputs.topology.chip.clock' column (the --x column)"),
            ([CSV, "--x", X, "--series", "weights"], "no 'weights' column (the --series column)"),
            ([CSV, "--x", DTYPE], f"energy.csv:2: '{DTYPE}' is not a number: 'bf16'"),
            # bf16 and int8 at the same clock without --series.
            ([CSV, "--x", X], f"energy.csv:7: tiny (decode): {X} 0.5 again (line 2 has it)"),
            ([none_ok, "--x", X], "no row has status ok (1 left out)"),
            ([empty, "--x", X], "no rows"),
            ([self.path("absent.csv"), "--x", X], "cannot read"),
            ([CSV, "--x", X, "--target-ms", "0"], "--target-ms must be a positive"),
            ([CSV, "--x", X, "--series", X], "--series must be another column than --x"),
            ([CSV, "--x", X, "--metric", "watts"], "invalid choice: 'watts'"),
            ([CSV], "the following arguments are required: --x"),
        ]
        for args, message in cases:
            r = self.run_script(*args, "--out", out)
            self.assertEqual(r.returncode, 2, f"{args}: {r.stderr}")
            self.assertIn(message, r.stderr, args)
            self.assertFalse(os.path.exists(out), args)
        self.assert_no_partial_output()


if __name__ == "__main__":
    unittest.main()
