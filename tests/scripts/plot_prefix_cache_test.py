#!/usr/bin/python3
"""Tests of scripts/plot_prefix_cache.py on two small per-request CSVs written
here in podsim serve's columns (the same four requests with and without the
prefix cache).

Exits 77 (CTest's SKIP_RETURN_CODE) when matplotlib is not importable.
"""

import os
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plot_test_support, however run
import plot_test_support as support  # noqa: E402

support.require_matplotlib()
plot = support.load_script("plot_prefix_cache")

HEADER = ("request,arrival_s,replica,prompt_tokens,output_tokens,status,queue_delay_s,"
          "first_token_s,finish_s,ttft_s,tpot_s,e2e_s,preemptions,decode_replica,"
          "kv_transfer_s,energy_j,cached_prompt_tokens\n")


def csv(ttfts, cached):
    rows = [f"{i},{i},r,1000,2,ok,0,{i + t},{i + t + 0.01},{t},0.01,{t + 0.01},0,r,0,,{c}\n"
            for i, (t, c) in enumerate(zip(ttfts, cached))]
    rows.append("4,9,r,500,2,rejected,,,9,,,,0,,,,0\n")  # left out
    return HEADER + "".join(rows)


class PlotPrefixCacheTest(support.PlotScriptTest):
    SCRIPT = "plot_prefix_cache"

    def setUp(self):
        super().setUp()
        self.with_cache = self.write("with.csv", csv([0.004, 0.001, 0.002, 0.003],
                                                     [0, 992, 992, 496]))
        self.without = self.write("without.csv", csv([0.004, 0.004, 0.005, 0.006], [0] * 4))

    def test_ttfts_and_hit_rate_by_hand(self):
        ttft, hit = plot.run(self.with_cache)
        self.assertEqual(ttft, [1.0, 2.0, 3.0, 4.0])  # milliseconds, sorted; rejected left out
        self.assertAlmostEqual(hit, (992 + 992 + 496) / 4000)
        self.assertEqual(plot.percentile(ttft, 50), 2.0)  # nearest rank
        self.assertEqual(plot.percentile(ttft, 99), 4.0)

    def test_draws_a_png_the_same_twice(self):
        images = []
        for i in range(2):
            out = self.path(f"p{i}.png")
            r = self.run_script(self.with_cache, self.without, "--out", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            width, height = support.png_size(out)
            self.assertGreater(width, 300)
            self.assertGreater(height, 200)
            images.append(support.read_bytes(out))
        self.assertEqual(images[0], images[1])
        self.assert_no_partial_output()

    def test_bad_input_exits_2_and_writes_nothing(self):
        old = self.write("old.csv", HEADER.replace(",cached_prompt_tokens", "") + "0,0,r,1,1,ok\n")
        nan = self.write("nan.csv", csv([0.001], [0]).replace(",0.011,0.001,", ",0.011,soon,", 1))
        fewer = self.write("fewer.csv", csv([0.004], [0]))
        out = self.path("out.png")
        cases = [
            ([old, self.without], "old.csv: missing column(s) cached_prompt_tokens"),
            ([nan, self.without], "nan.csv:2: 'ttft_s' is not a number"),
            ([self.with_cache, fewer], "not the same arrivals"),
            ([self.path("absent.csv"), self.without], "cannot read"),
        ]
        for args, message in cases:
            r = self.run_script(*args, "--out", out)
            self.assertEqual(r.returncode, 2, f"{args}: {r.stderr}")
            self.assertIn(message, r.stderr, args)
            self.assertFalse(os.path.exists(out), args)
        self.assert_no_partial_output()


if __name__ == "__main__":
    unittest.main()
