#!/usr/bin/python3
"""Tests of scripts/plot_sweep.py and scripts/sweep_params.py.

The metric chart is checked on a sweep written below from a formula (step time
= base of the workload + batch x 1000 / link bandwidth, in podsim sweep's
columns), so every expected point is computed independently of the script, and
on a sweep of serve files and a search frontier (tests/scripts/data/
frontier.csv); what was drawn is read back with --describe, which prints the
figure's artists. The --breakdown chart on tests/scripts/data/sweep.csv
(written by hand in podsim sweep's columns).

Exits 77 (CTest's SKIP_RETURN_CODE) when matplotlib is not importable.
"""

import csv
import io
import os
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plot_test_support, however run
import plot_test_support as support  # noqa: E402

support.require_matplotlib()
plot = support.load_script("plot_sweep")
params = support.load_script("sweep_params")
breakdown = support.load_script("sweep_breakdown")
png_size = support.png_size
CSV = os.path.join(support.DATA, "sweep.csv")
FRONTIER = os.path.join(support.DATA, "frontier.csv")

WORKLOADS = {"../w-decode.textproto": 1000.0, "../w-prefill.textproto": 90000.0}
BANDWIDTHS = (25, 50, 100)
BATCHES = (16, 64, 256)
HEADER = ["schema_version", "status", "reason", "inputs.topology.file",
          "inputs.topology.overrides", "inputs.workload.file", "inputs.workload.overrides",
          "inputs.run.network", "inputs.run.compute", "serving.step_time_us",
          "serving.tokens_per_s"]


def step_us(workload, bandwidth, batch):
    return WORKLOADS[workload] + batch * 1000.0 / bandwidth


def grid_csv():
    """The sweep workload x bandwidth (both torus dimensions) x batch, and an oom row."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(HEADER)
    for workload in WORKLOADS:
        for bw in BANDWIDTHS:
            for batch in BATCHES:
                s = step_us(workload, bw, batch)
                w.writerow(["13", "ok", "", "t.textproto",
                            f"topology.torus.dims[0].link_bandwidth_gbps={bw};"
                            f"topology.torus.dims[1].link_bandwidth_gbps={bw}",
                            workload, f"workload.scenario.batch={batch}", "flow", "roofline",
                            repr(s), repr(batch / s * 1e6)])
    w.writerow(["13", "oom", "too big", "t.textproto", "topology.torus.dims[0].link_bandwidth_gbps=1",
                "../w-decode.textproto", "workload.scenario.batch=9999", "flow", "roofline", "0", "0"])
    return out.getvalue()


def serve_sweep_csv():
    """Serve summary rows of a sweep over serve files: an overrides column, no status."""
    rows = ["name,overrides,requests_per_s,goodput_requests_per_s,ttft_s.p99"]
    for rate in (1, 2, 4, 8):
        for max_batch in (32, 64):
            goodput = min(rate, max_batch / 16.0)
            rows.append(f"s,serve.arrivals.poisson.rate_per_s={rate};serve.replicas[0].max_batch="
                        f"{max_batch},{rate},{goodput},{0.1 * rate}")
    return "\n".join(rows) + "\n"


def panels(text):
    """--describe output as {panel title: [lines of that panel]}."""
    out, current = {}, None
    for line in text.splitlines():
        if line.startswith("panel "):
            current = line.split(": ", 1)[1]
            out[current] = []
        elif current is not None:
            out[current].append(line.strip())
    return out


class PlotSweepTest(support.PlotScriptTest):
    SCRIPT = "plot_sweep"

    def setUp(self):
        super().setUp()
        self.grid = self.write("grid.csv", grid_csv())

    def draw(self, *args, path=None):
        out = self.path("chart.png")
        r = self.run_script(path or self.grid, "--out", out, "--describe", *args)
        self.assertEqual(r.returncode, 0, r.stderr)
        png_size(out)
        return r

    # The parameters: what differs between rows.

    def test_parameters_merge_aliases_and_zipped_paths(self):
        header, rows = plot.read_table(self.grid)
        rows, skipped = plot.ok_rows(header, rows)
        self.assertEqual(skipped, 1)
        found = params.find_params(header, [r for _, r in rows])
        # Both torus dimensions take the same bandwidth at every point: one parameter.
        self.assertEqual([p.name for p in found],
                         ["topology.torus.dims[0,1].link_bandwidth_gbps",
                          "workload.scenario.batch", "workload"])
        self.assertEqual([p.kind for p in found], ["override", "override", "file"])
        self.assertEqual(found[2].value(0), "w-decode")
        # Zipped parameters (one-to-one, different values) are one compound parameter.
        zipped = [{"inputs.topology.overrides": f"topology.chip.matrix_units.count={c};"
                   f"topology.chip.matrix_units.rows={r};topology.chip.matrix_units.columns={r}"}
                  for c, r in ((16, 64), (4, 128), (1, 256))]
        (p,) = params.find_params(["inputs.topology.overrides"], zipped)
        self.assertEqual(p.name, "topology.chip.matrix_units.count / "
                                 "topology.chip.matrix_units.{rows,columns}")
        self.assertEqual([p.value(i) for i in range(3)], ["16 / 64", "4 / 128", "1 / 256"])
        self.assertEqual(p.short(), "count / {rows,columns}")

    def test_units_and_scales(self):
        self.assertEqual(params.unit_of("serving.step_time_us"), ("serving.step_time", "us", "time"))
        self.assertEqual(params.unit_of("ttft_s.p99"), ("ttft.p99", "s", "time"))
        self.assertEqual(params.unit_of("goodput_requests_per_s")[1], "requests/s")
        self.assertEqual(params.unit_of("serve.arrivals.poisson.rate_per_s")[1], "/s")
        self.assertEqual(params.unit_of("serving.energy.j_per_token")[1], "J/token")
        self.assertEqual(params.unit_of("tokens_per_j")[1], "tokens/J")
        self.assertEqual(params.unit_of("usd_per_m_tokens")[1], "$/M tokens")
        self.assertEqual(params.unit_of("serving.mfu"), ("serving.mfu", "", None))
        self.assertEqual(params.display_scale("serving.step_time_us", [900.0, 20000.0]),
                         ("serving.step_time (ms)", 1e-3))
        self.assertEqual(params.display_scale("ttft_s.p99", [0.05, 0.4]), ("ttft.p99 (ms)", 1e3))
        self.assertEqual(params.display_scale("topology.chip.vmem_bytes", [16 << 20, 256 << 20]),
                         ("topology.chip.vmem (MiB)", 1.0 / (1 << 20)))
        self.assertEqual(params.shown("topology.chip.vmem_bytes", "33554432"), "32 MiB")
        self.assertTrue(plot.geometric([16, 32, 64, 16]))
        self.assertFalse(plot.geometric([25, 50, 75]))
        self.assertFalse(plot.geometric([1, 2]))

    # Which parameter goes where, read back from the figure.

    def test_default_x_is_the_first_override_lines_the_next_panels_the_files(self):
        r = self.draw()
        p = panels(r.stdout)
        self.assertEqual(list(p), ["'workload = w-decode'", "'workload = w-prefill'"])
        decode = p["'workload = w-decode'"]
        self.assertIn("x: 'topology.torus.dims[0,1].link_bandwidth_gbps (GB/s)' log", decode)
        self.assertIn("y: 'serving.step_time (ms)' linear", decode)  # 1 to 11 ms
        self.assertIn("x ticks: 25 | 50 | 100", decode)
        self.assertIn("legend 'batch': 16 | 64 | 256", decode)
        expected = ", ".join(f"({bw}, {step_us('../w-decode.textproto', bw, 256) / 1e3:.6g})"
                             for bw in BANDWIDTHS)
        self.assertIn(f"line '256': {expected}", decode)
        prefill = p["'workload = w-prefill'"]
        self.assertIn("y: 'serving.step_time (ms)' linear", prefill)
        self.assertIn("1 rows not ok were left out", r.stderr)

    def test_x_and_facet_options(self):
        r = self.draw("--x", "batch", "--y", "serving.tokens_per_s", "--facet", "workload")
        p = panels(r.stdout)
        decode = p["'workload = w-decode'"]
        self.assertIn("x: 'workload.scenario.batch' log", decode)  # 16, 64, 256: geometric
        self.assertIn("y: 'serving.tokens_per_s (tokens/s)' linear", decode)
        self.assertIn("legend 'dims[0,1].link_bandwidth_gbps': 25 | 50 | 100", decode)
        s = step_us("../w-decode.textproto", 50, 64)
        self.assertTrue(any(line.startswith("line '50': ") and f"(64, {64 / s * 1e6:.6g})" in line
                            for line in decode), decode)
        # Batch in panels: the bandwidth and the workload are the lines, both named.
        r = self.draw("--facet", "workload.scenario.batch")
        p = panels(r.stdout)
        self.assertEqual(list(p), ["'batch = 16'", "'batch = 64'", "'batch = 256'"])
        self.assertIn("legend 'workload': w-decode | w-prefill", p["'batch = 16'"])
        self.assertIn("x: 'topology.torus.dims[0,1].link_bandwidth_gbps (GB/s)' log",
                      p["'batch = 16'"])

    def test_categorical_x_keeps_the_sweep_order(self):
        text = grid_csv().replace("roofline", "systolic", 9)  # the first 9 rows: systolic
        path = self.write("compute.csv", text)
        r = self.draw("--x", "compute", "--facet", "workload", "--facet", "batch", path=path)
        p = panels(r.stdout)
        first = p["'workload = w-decode, batch = 16'"]
        self.assertIn("x: 'compute' linear", first)
        self.assertIn("x ticks: systolic | roofline", first)

    def test_serve_sweep_rows_and_a_search_frontier(self):
        serve = self.write("serve.csv", serve_sweep_csv())
        r = self.draw(path=serve)  # no status column: every row; default y: goodput
        p = panels(r.stdout)
        (only,) = p.values()
        self.assertIn("x: 'serve.arrivals.poisson.rate_per_s (/s)' log", only)
        self.assertIn("y: 'goodput_requests_per_s (requests/s)' linear", only)
        self.assertIn("line '32': (1, 1), (2, 2), (4, 2), (8, 2)", only)
        self.assertIn("legend 'replicas[0].max_batch': 32 | 64", only)
        r = self.draw("--y", "ttft_s.p99", path=serve)
        self.assertIn("y: 'ttft.p99 (ms)' linear", r.stdout)
        # A frontier: one configuration per row, so the rows are one series.
        r = self.draw("--x", "batch", "--y", "tokens_per_s_per_chip", path=FRONTIER)
        (only,) = panels(r.stdout).values()
        self.assertIn("x: 'batch' linear", only)
        self.assertIn("y: 'tokens_per_s_per_chip (tokens/s per chip)' linear", only)
        self.assertIn("line 'tokens_per_s_per_chip': (8, 200), (32, 500), (64, 700), (64, 800)",
                      only)

    def test_operation_list_rows_are_one_line_per_operation(self):
        rows = ["status,inputs.topology.overrides,op_list.operations.name,"
                "op_list.operations.time_us"]
        for bw in (25, 50):
            for op, us in (("gather", 100), ("bcast", 30)):
                rows.append(f"ok,topology.torus.dims[0].link_bandwidth_gbps={bw},{op},"
                            f"{us * 25 / bw}")
        r = self.draw(path=self.write("ops.csv", "\n".join(rows) + "\n"))
        (only,) = panels(r.stdout).values()
        self.assertIn("y: 'op_list.operations.time (us)' linear", only)
        self.assertIn("line 'gather': (25, 100), (50, 50)", only)
        self.assertIn("legend 'operation': gather | bcast", only)

    def test_draws_the_same_bytes_twice(self):
        images = []
        for i in range(2):
            out = self.path(f"s{i}.png")
            r = self.run_script(self.grid, "--out", out, "--title", "fixture")
            self.assertEqual(r.returncode, 0, r.stderr)
            width, height = png_size(out)
            self.assertGreater(width, 600)  # two panels side by side
            images.append(support.read_bytes(out))
        self.assertEqual(images[0], images[1])

    def test_bad_input_exits_2_and_writes_nothing(self):
        text = grid_csv()
        lines = text.splitlines()
        bad_number = self.write("nan.csv", text.replace(",flow,roofline,", ",flow,roofline,lots,x", 1)
                                .replace("lots,x", "lots", 1))
        empty_cell = self.write("cell.csv", "\n".join(lines[:2]) + "\n"
                                + lines[2].rsplit(",", 1)[0] + ",\n" + "\n".join(lines[3:]) + "\n")
        twice = self.write("twice.csv", "\n".join(lines[:3] + [lines[2]]) + "\n")
        short = self.write("short.csv", lines[0] + "\n" + lines[1].rsplit(",", 2)[0] + "\n")
        constant = self.write("one.csv", "\n".join(lines[:2]) + "\n")
        none_ok = self.write("oom.csv", lines[0] + "\n" + lines[-1] + "\n")
        out = self.path("out.png")
        cases = [
            ([self.grid, "--x", "no.such.path"], "--x no.such.path: neither a swept parameter"),
            ([self.grid, "--facet", "nothing"], "--facet nothing: neither a swept parameter"),
            ([self.grid, "--facet", "batch", "--x", "batch"], "--facet batch is the x parameter"),
            ([self.grid, "--y", "serving.nope"], "--y serving.nope: no such column"),
            ([self.grid, "--x", "inputs.run.network"], "the same value in every row"),
            ([bad_number], "nan.csv:2: 'serving.step_time_us' is not a number"),
            ([empty_cell, "--y", "serving.tokens_per_s"], "cell.csv:3: 'serving.tokens_per_s' is empty"),
            ([twice], "twice.csv:4: the same point as line 3"),
            ([short], "short.csv:2: 9 fields, the header has 11"),
            ([constant], "no parameter differs between the rows"),
            ([none_ok], "no row has status ok (1 left out)"),
            ([self.write("empty.csv", "")], "empty"),
            ([self.path("absent.csv")], "cannot read"),
            ([self.write("run.csv", "model,x\nM,1\n")], "no step-time, goodput or operation"),
            ([CSV, "--breakdown", "--x", "batch"], "--breakdown draws every point"),
        ]
        for args, message in cases:
            r = self.run_script(*args, "--out", out)
            self.assertEqual(r.returncode, 2, f"{args}: {r.stderr}")
            self.assertIn(message, r.stderr, args)
            self.assertFalse(os.path.exists(out), args)
        self.assert_no_partial_output()

    # --breakdown: the stacked bars of every point.

    def test_breakdown_reads_ok_rows_their_parts_and_the_swept_values(self):
        points, skipped = breakdown.read_sweep(CSV)
        self.assertEqual(skipped, 1)  # the oom row
        self.assertEqual([p["group"] for p in points],
                         ["decode (tensorcore)", "decode (tensorcore)", "prefill (tensorcore)"])
        self.assertEqual(points[1]["parts"], [40, 10, 5, 10, 5, 15, 5])
        self.assertEqual(sum(points[1]["parts"]), points[1]["step"])
        # Only the override that differs is a swept parameter.
        self.assertEqual(breakdown.swept(points), ["topology.chip.vmem_bytes"])
        self.assertEqual(breakdown.shown("topology.chip.vmem_bytes", "33554432"), "32 MiB")
        self.assertEqual(breakdown.shown("topology.chip.vmem_bytes", "1000"), "1000")

    def test_breakdown_draws_a_png_the_same_twice(self):
        images = []
        for i in range(2):
            out = self.path(f"s{i}.png")
            r = self.run_script(CSV, "--breakdown", "--out", out, "--title", "fixture",
                                "--describe")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("1 rows not ok were left out", r.stderr)
            self.assertIn("x ticks: 16 MiB | 32 MiB", r.stdout)
            width, height = png_size(out)
            self.assertGreater(width, 300)
            self.assertGreater(height, 400)  # two panels: decode and prefill
            images.append(support.read_bytes(out))
        self.assertEqual(images[0], images[1])

    def test_breakdown_bad_input_exits_2_and_writes_nothing(self):
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
            r = self.run_script(*args, "--breakdown", "--out", out)
            self.assertEqual(r.returncode, 2, f"{args}: {r.stderr}")
            self.assertIn(message, r.stderr, args)
            self.assertFalse(os.path.exists(out), args)
        self.assert_no_partial_output()


if __name__ == "__main__":
    unittest.main()
