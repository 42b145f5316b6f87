#!/usr/bin/python3
"""Tests of scripts/plot_breakdown.py on small fixtures (tests/scripts/data/ and
link statistics generated below from a formula, so expected figures are
computed independently of the script).

Exits 77 (CTest's SKIP_RETURN_CODE) when matplotlib is not importable.
"""

import json
import math
import os
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plot_test_support, however run
import plot_test_support as support  # noqa: E402

support.require_matplotlib()
plot = support.load_script("plot_breakdown")
png_size = support.png_size
CSV = os.path.join(support.DATA, "serving.csv")
JSON = os.path.join(support.DATA, "serving.json")

# A 3x2x2 torus: x a ring of 3, y and z lines of 2. Link (chip, dim, dir)
# carries utilisation u(chip, dim, dir) = (chip + 10 * dim + (3 if dir < 0 else 0)) / 100.
SHAPE = (3, 2, 2)


def util(chip, dim, direction):
    return (chip + 10 * dim + (3 if direction < 0 else 0)) / 100


def coords(chip):
    return chip % 3, chip // 3 % 2, chip // 6


def links():
    out = []
    for chip in range(12):
        c = coords(chip)
        for dim, size in enumerate(SHAPE):
            for direction in (+1, -1):
                wraps = dim == 0
                if not wraps and not 0 <= c[dim] + direction < size:
                    continue  # the end of a line
                out.append({"link": len(out), "src": chip, "kind": "ici", "dim": dim,
                            "direction": direction, "bytes": 1,
                            "utilisation": util(chip, dim, direction), "busy_fraction": 0.5})
    out.append({"link": len(out), "src": 0, "dst": 12, "kind": "dcn_up", "dim": None,
                "direction": 0, "utilisation": 1.0, "busy_fraction": 1.0})
    return out


def link_json(path, **overrides):
    stats = {"window_us": 1000.0, "shape": list(SHAPE), "slices": 1, "chips": 12,
             "replicas_unfolded": False, "links": links()}
    stats.update(overrides)
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"topology": "test-3x2x2", "workload": "test", "link_stats": stats}, f)


class PlotBreakdownTest(support.PlotScriptTest):
    SCRIPT = "plot_breakdown"

    def setUp(self):
        super().setUp()
        self.links = self.path("links.json")
        link_json(self.links)

    def test_draws_both_charts_as_png(self):
        r = self.run_script(CSV, JSON, self.links, "--out-breakdown", self.path("b.png"),
                            "--out-heatmap", self.path("h.png"), "--title", "fixture")
        self.assertEqual(r.returncode, 0, r.stderr)
        for name in ("b.png", "h.png"):
            width, height = png_size(self.path(name))
            self.assertGreater(width, 300)
            self.assertGreater(height, 150)

    def test_every_heatmap_option_draws(self):
        for extra in (["--by-direction"], ["--reduce", "mean", "--metric", "busy_fraction"],
                      ["--link-dim", "1"], ["--by-direction", "--link-dim", "0"]):
            out = self.path("h.png")
            r = self.run_script(self.links, "--out-heatmap", out, *extra)
            self.assertEqual(r.returncode, 0, f"{extra}: {r.stderr}")
            png_size(out)
            os.unlink(out)

    def test_percent_breakdown_draws(self):
        r = self.run_script(CSV, "--out-breakdown", self.path("b.png"), "--percent")
        self.assertEqual(r.returncode, 0, r.stderr)
        png_size(self.path("b.png"))

    def test_output_is_byte_identical_run_to_run(self):
        images = []
        for i in range(2):
            out = self.path(f"b{i}.png")
            r = self.run_script(CSV, JSON, "--out-breakdown", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            images.append(support.read_bytes(out))
        self.assertEqual(images[0], images[1])

    def test_reads_scenarios_in_order_skipping_repeated_headers(self):
        scenarios, stats = plot.read_inputs([CSV, JSON])
        self.assertEqual(stats, [])
        self.assertEqual([s.label.split("\n")[0] for s in scenarios], [
            "LLaMA-3-8B decode, batch 256", "LLaMA-3-70B prefill, batch 256",
            "Mixtral-8x7B-like decode, batch 128", "Tiny decode, batch 8"])
        self.assertEqual(scenarios[1].label.split("\n")[1], "tpu-v5e-16x16")
        tiny = scenarios[3]
        self.assertEqual(tiny.step_us, 100)
        self.assertEqual(tiny.parts_us, {"compute_us": 10, "memory_us": 50,
                                         "collective_exposed_us": 30, "idle_us": 10})
        self.assertEqual(tiny.overlapped_us, 5)
        self.assertAlmostEqual(scenarios[1].overlapped_us, 781832.4871619999)

    def test_reads_result_schema_3_and_skips_rows_that_did_not_run(self):
        # podsim.Result columns (a subset is enough: the script reads by name).
        header = ["schema_version", "status", "reason", "inputs.topology.name",
                  "inputs.workload.name", "inputs.serving.model.name",
                  "inputs.serving.scenario.phase", "inputs.serving.scenario.batch",
                  "serving.step_time_us", "serving.compute_us", "serving.memory_us",
                  "serving.collective_exposed_us", "serving.idle_us",
                  "serving.collective_overlapped_us"]
        ok = ["3", "ok", "", "pod-a", "w", "M", "decode", "8", "100", "10", "50", "30", "10", "5"]
        oom = ["3", "oom", "too big", "pod-b", "w", "M", "decode", "8", "0", "0", "0", "0", "0", "0"]
        path = self.write("v3.csv", "\n".join(",".join(r) for r in (header, ok, oom)) + "\n")
        scenarios, _ = plot.read_inputs([path])
        self.assertEqual(len(scenarios), 1)
        self.assertEqual(scenarios[0].label, "M decode, batch 8\npod-a")
        self.assertEqual(scenarios[0].parts_us["memory_us"], 50.0)
        # The same as JSON, nested as podsim writes it.
        obj = {"schema_version": 3, "status": "ok",
               "inputs": {"topology": {"name": "pod-a"}, "workload": {"name": "w"},
                          "serving": {"model": {"name": "M"},
                                      "scenario": {"phase": "decode", "batch": 8}}},
               "serving": {"step_time_us": 100, "compute_us": 10, "memory_us": 50,
                           "collective_exposed_us": 30, "idle_us": 10,
                           "collective_overlapped_us": 5}}
        jpath = self.write("v3.json", json.dumps(obj))
        scenarios, _ = plot.read_inputs([jpath])
        self.assertEqual(len(scenarios), 1)
        self.assertEqual(scenarios[0].label, "M decode, batch 8\npod-a")

    def test_sweep_rows_are_labelled_by_what_differs_between_them(self):
        # A sweep's rows agree on model, phase, batch and topology; the labels
        # must name the swept values, never repeat one label for different rows.
        header = ["status", "inputs.topology.name", "inputs.topology.overrides",
                  "inputs.workload.overrides", "inputs.run.compute",
                  "inputs.serving.model.name", "inputs.serving.scenario.phase",
                  "inputs.serving.scenario.batch", "serving.step_time_us", "serving.compute_us",
                  "serving.memory_us", "serving.collective_exposed_us", "serving.idle_us",
                  "serving.collective_overlapped_us"]
        rows = [header]
        for bw in (25, 50):
            for batch in (16, 32):
                rows.append(["ok", "pod", f"topology.torus.dims[0].link_bandwidth_gbps={bw};"
                             f"topology.torus.dims[1].link_bandwidth_gbps={bw}",
                             f"workload.scenario.batch={batch}", "roofline", "M", "decode",
                             str(batch), "100", "10", "50", "30", "10", "5"])
        path = self.write("sweep.csv", "\n".join(",".join(r) for r in rows) + "\n")
        out = self.path("b.png")
        r = self.run_script(path, "--out-breakdown", out, "--describe")
        self.assertEqual(r.returncode, 0, r.stderr)
        ticks = next(line for line in r.stdout.splitlines() if "y ticks:" in line)
        labels = ticks.split("y ticks: ", 1)[1].split(" | ")
        self.assertEqual(labels, [
            "M decode, batch 16\\npod\\ndims[0,1].link_bandwidth_gbps = 25",
            "M decode, batch 32\\npod\\ndims[0,1].link_bandwidth_gbps = 25",
            "M decode, batch 16\\npod\\ndims[0,1].link_bandwidth_gbps = 50",
            "M decode, batch 32\\npod\\ndims[0,1].link_bandwidth_gbps = 50"])
        # Rows from runs without overrides: the input columns that differ name
        # them; rows equal in every input get where they were read.
        header += ["inputs.topology.chip.hbm_bandwidth_gbps"]
        rows = [header]
        for hbm in (819, 1640, 819):
            rows.append(["ok", "pod", "", "", "roofline", "M", "decode", "16", "100", "10", "50",
                         "30", "10", "5", str(hbm)])
        path = self.write("runs.csv", "\n".join(",".join(r) for r in rows) + "\n")
        scenarios, _ = plot.read_inputs([path])
        where = os.path.join(self.dir, "runs.csv")
        self.assertEqual([s.label for s in scenarios], [
            f"M decode, batch 16\npod\ntopology.chip.hbm_bandwidth_gbps = 819, {where}:2",
            "M decode, batch 16\npod\ntopology.chip.hbm_bandwidth_gbps = 1640",
            f"M decode, batch 16\npod\ntopology.chip.hbm_bandwidth_gbps = 819, {where}:4"])
        # JSON objects carry the overrides as lists.
        objs = [{"status": "ok", "inputs": {"topology": {"name": "pod", "overrides": [
                    f"topology.chip.vmem_bytes={v}"]}, "serving": {"model": {"name": "M"}}},
                 "serving": {"step_time_us": 100, "compute_us": 10, "memory_us": 50,
                             "collective_exposed_us": 30, "idle_us": 10,
                             "collective_overlapped_us": 5}} for v in (16 << 20, 32 << 20)]
        jpath = self.write("sweep.json", json.dumps(objs))
        scenarios, _ = plot.read_inputs([jpath])
        self.assertEqual([s.label.split("\n")[-1] for s in scenarios],
                         ["vmem_bytes = 16 MiB", "vmem_bytes = 32 MiB"])

    def test_heatmap_cells_are_the_max_of_each_chips_outgoing_links(self):
        _, stats = plot.read_inputs([self.links])
        panels = plot.chip_panels(stats[0])
        self.assertEqual([t for t, _ in panels], ["z = 0", "z = 1"])
        for z, (_, grid) in enumerate(panels):
            self.assertEqual((len(grid), len(grid[0])), (2, 3))  # y rows, x columns
            for y in range(2):
                for x in range(3):
                    chip = x + 3 * y + 6 * z
                    # Worked by hand: the largest term is the z link (dim 2),
                    # +z from z = 0 and -z (3 more) from z = 1.
                    expected = util(chip, 2, +1 if z == 0 else -1)
                    self.assertAlmostEqual(grid[y][x], expected)

    def test_heatmap_mean_and_one_dimension(self):
        _, stats = plot.read_inputs([self.links])
        grid = plot.chip_panels(stats[0], reduce="mean", link_dim=0)[0][1]
        # Along x (a ring) every chip has +x and -x: mean = (c + c + 3) / 2 / 100.
        self.assertAlmostEqual(grid[1][2], (5 + 5 + 3) / 2 / 100)

    def test_heatmap_by_direction_shows_each_link_and_gaps(self):
        _, stats = plot.read_inputs([self.links])
        panels = plot.chip_panels(stats[0], by_direction=True)
        titles = [t for t, _ in panels]
        self.assertEqual(titles[:6], ["z = 0, +x links", "z = 0, -x links", "z = 0, +y links",
                                      "z = 0, -y links", "z = 0, +z links", "z = 0, -z links"])
        self.assertEqual(len(panels), 12)
        plus_y = panels[2][1]
        self.assertAlmostEqual(plus_y[0][1], util(1, 1, +1))
        self.assertTrue(math.isnan(plus_y[1][1]))  # y = 1 is the end of the line

    def test_bad_input_exits_2_and_writes_nothing(self):
        bad_csv = self.write("bad.csv", "model,step_time_us\nX,12\n")
        with open(CSV, encoding="utf-8") as f:
            text = f.read()
        bad_number = self.write("nan.csv", text.replace(",18367.136175,", ",lots,", 1))
        bad_json = self.write("bad.json", "{\"step_time_us\": ")
        far_link = self.path("far.json")
        link_json(far_link, links=[{"src": 99, "kind": "ici", "dim": 0, "direction": 1,
                                    "utilisation": 0.5}])
        out = self.path("out.png")
        cases = [
            ([bad_csv, "--out-breakdown", out], "not a serving result of podsim run (missing"),
            ([bad_number, "--out-breakdown", out], "'step_time_us' is not a number"),
            ([bad_json, "--out-breakdown", out], "invalid JSON"),
            ([self.path("absent.csv"), "--out-breakdown", out], "cannot read"),
            ([CSV, "--out-heatmap", out], "needs exactly one input with link_stats"),
            ([self.links, "--out-breakdown", out], "no serving scenario"),
            ([far_link, "--out-heatmap", out], "outside the 12 chips"),
            ([self.links, "--out-heatmap", out, "--link-dim", "3"], "dimensions 0..2"),
            ([CSV], "nothing to draw"),
        ]
        for args, message in cases:
            r = self.run_script(*args)
            self.assertEqual(r.returncode, 2, f"{args}: {r.stderr}")
            self.assertIn(message, r.stderr, args)
            self.assertFalse(os.path.exists(out), args)
        self.assert_no_partial_output()


if __name__ == "__main__":
    unittest.main()
