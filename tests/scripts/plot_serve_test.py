#!/usr/bin/python3
"""Tests of scripts/plot_serve.py on a small serve run's CSVs
(tests/scripts/data/serve_requests.csv and serve_timeseries.csv: the first rows
of `podsim serve workloads/serve/llama3-70b-azure-conv.serve.textproto
--requests ... --timeseries ...`).

Exits 77 (CTest's SKIP_RETURN_CODE) when matplotlib is not importable.
"""

import csv
import json
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

    # SLO lines and the TBT panel, read back with --describe.

    def requests(self):
        """The fixture's completed requests' TTFT and TPOT, in ms, worked out here."""
        with open(REQUESTS, encoding="utf-8", newline="") as f:
            rows = [r for r in csv.DictReader(f) if r["status"] == "ok"]
        return ([float(r["ttft_s"]) * 1e3 for r in rows],
                [float(r["tpot_s"]) * 1e3 for r in rows if r["tpot_s"]])

    def summary(self, name="s.json", **fields):
        report = {"name": "x", "slo_ttft_ms": 100, "slo_tpot_ms": 0, "slo_classes": [
            {"name": "chat", "ttft_ms": 60, "tpot_ms": 14},
            {"name": "batch", "ttft_ms": 100, "tpot_ms": 0}]}
        report.update(fields)
        return self.write(name, json.dumps(report))

    def slo_lines(self, stdout):
        return [line.strip() for line in stdout.splitlines() if "slo line:" in line]

    def test_slo_lines_from_the_summary_with_the_share_within(self):
        ttft, tpot = self.requests()
        within = round(100 * sum(1 for v in ttft if v <= 100) / len(ttft))
        out = self.path("s.png")
        r = self.run_script(REQUESTS, "--summary", self.summary(), "--out", out, "--describe")
        self.assertEqual(r.returncode, 0, r.stderr)
        # The overall TTFT SLO and the batch class's share one line; no TPOT SLO
        # overall (0 is none); the chat class's two lines are dotted.
        self.assertEqual(self.slo_lines(r.stdout), [
            "slo line: 'chat: TTFT SLO 60 ms' at x = 60",
            f"slo line: 'batch and all: TTFT SLO 100 ms: {within}% within' at x = 100",
            "slo line: 'chat: TPOT SLO 14 ms' at x = 14"])
        self.assertNotIn("Time between tokens", r.stdout)  # no max_tbt_s column
        # The options take the place of the summary's overall SLOs.
        r = self.run_script(REQUESTS, "--summary", self.summary(), "--slo-ttft-ms", "50",
                            "--slo-tpot-ms", "13", "--out", out, "--describe")
        self.assertEqual(r.returncode, 0, r.stderr)
        tpot_within = round(100 * sum(1 for v in tpot if v <= 13) / len(tpot))
        self.assertIn(f"slo line: 'TPOT SLO 13 ms: {tpot_within}% within' at x = 13",
                      self.slo_lines(r.stdout))
        self.assertIn("slo line: 'batch: TTFT SLO 100 ms' at x = 100", self.slo_lines(r.stdout))
        # A summary CSV row carries the overall SLOs too.
        row = self.write("s.csv", "name,slo_ttft_ms,slo_tpot_ms\nx,0,15\n")
        r = self.run_script(REQUESTS, "--summary", row, "--out", out, "--describe")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(self.slo_lines(r.stdout)), 1)
        self.assertIn("'TPOT SLO 15 ms: ", self.slo_lines(r.stdout)[0])

    def test_tbt_panel_when_the_requests_have_max_tbt(self):
        with open(REQUESTS, encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f))
        rows[0].append("max_tbt_s")
        for r in rows[1:]:  # each request's longest gap: three times its mean, here
            r.append(repr(3 * float(r[10])) if r[10] else "")
        path = self.write("tbt.csv", "\n".join(",".join(r) for r in rows) + "\n")
        gaps = sorted(3 * float(r[10]) * 1e3 for r in rows[1:] if r[5] == "ok" and r[10])
        out = self.path("t.png")
        r = self.run_script(path, "--slo-tbt-ms", "40", "--timeseries", SERIES, "--out", out,
                            "--describe")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("panel 2: \"Time between tokens: each request's longest gap\"", r.stdout)
        within = round(100 * sum(1 for v in gaps if v <= 40) / len(gaps))
        self.assertEqual(self.slo_lines(r.stdout), [f"slo line: 'TBT SLO 40 ms: {within}% within' "
                                                    "at x = 40"])
        self.assertIn(f"line 'longest gap between tokens (p50 {plot.percentile(gaps, 50):.0f}, "
                      f"p99 {plot.percentile(gaps, 99):.0f} ms)'", r.stdout)
        # Without the column, a TBT SLO has nowhere to go: said, not drawn.
        r = self.run_script(REQUESTS, "--slo-tbt-ms", "40", "--out", out, "--describe")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("no max_tbt_s column, so the TBT SLO is not drawn", r.stderr)
        self.assertEqual(self.slo_lines(r.stdout), [])

    def test_slo_chart_is_the_same_bytes_twice(self):
        summary = self.summary()
        images = []
        for name in ("a.png", "b.png"):
            r = self.run_script(REQUESTS, "--timeseries", SERIES, "--summary", summary,
                                "--out", self.path(name))
            self.assertEqual(r.returncode, 0, r.stderr)
            images.append(support.read_bytes(self.path(name)))
        self.assertEqual(images[0], images[1])

    def test_bad_slos_exit_2_and_write_nothing(self):
        out = self.path("none.png")
        cases = [
            (["--summary", self.write("bad.json", "{\"slo_ttft_ms\": ")], "invalid JSON"),
            (["--summary", self.write("other.json", "{\"a\": 1}")], "not a podsim serve summary"),
            (["--summary", self.summary("soon.json", slo_ttft_ms="soon")],
             "'slo_ttft_ms' is not a number"),
            (["--summary", self.summary("neg.json", slo_classes=[{"name": "c", "ttft_ms": -1}])],
             "'slo_classes[0].ttft_ms' must be a finite number >= 0"),
            (["--summary", self.write("two.csv", "slo_ttft_ms\n1\n2\n")], "found 2 CSV rows"),
            (["--summary", self.path("absent.json")], "cannot read"),
            (["--slo-ttft-ms", "0"], "--slo-ttft-ms must be a time > 0 ms"),
            (["--slo-tbt-ms", "x"], "'--slo-tbt-ms' is not a number"),
            (["--slo-tpot-ms", "nan"], "'--slo-tpot-ms' must be a finite number"),
        ]
        for args, message in cases:
            r = self.run_script(REQUESTS, *args, "--out", out)
            self.assertEqual(r.returncode, 2, f"{args}: {r.stderr}")
            self.assertIn(message, r.stderr, args)
            self.assertFalse(os.path.exists(out), args)
        self.assert_no_partial_output()


if __name__ == "__main__":
    unittest.main()
