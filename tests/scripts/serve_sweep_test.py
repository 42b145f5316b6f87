#!/usr/bin/python3
"""Tests of scripts/serve_sweep.py: the serve file's variants (paths made
absolute, fields set, patterns applied), runs through a stand-in for podsim
(a small script printing one summary row from the file it is given), the CSV
and the plot, and bad input exiting 2.

Exits 77 (CTest's SKIP_RETURN_CODE) when matplotlib is not importable.
"""

import os
import stat
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plot_test_support, however run
import plot_test_support as support  # noqa: E402

support.require_matplotlib()
sweep = support.load_script("serve_sweep")

SERVE = """replicas {
  topology: "../../topologies/v5e-4x4.textproto"
  workload: "/abs/w.textproto"
  speculative { draft_tokens: 4 acceptance_rate: 0.7 draft_workload: "d.textproto" }
}
arrivals { trace { file: "t.csv" speedup: 2 } }
"""

# Prints a summary row: the acceptance rate it was given (or -1), the
# draft tokens, and whether every file name is absolute.
FAKE_PODSIM = """#!%s
import re, sys
text = open(sys.argv[2]).read()
rate = re.search(r"acceptance_rate: ([^ }]+)", text)
k = re.search(r"draft_tokens: ([0-9]+)", text)
paths = re.findall(r'(?:topology|workload|file|draft_workload): "([^"]*)"', text)
print("name,tpot_s.p50,draft_tokens,absolute")
print("x,%%s,%%s,%%d" %% (rate.group(1) if rate else -1, k.group(1) if k else 0,
                       all(p.startswith("/") for p in paths)))
""" % sys.executable


class ServeSweepTest(support.PlotScriptTest):
    SCRIPT = "serve_sweep"

    def setUp(self):
        super().setUp()
        sub = os.path.join(self.dir, "a", "b")
        os.makedirs(sub)
        self.serve = os.path.join(sub, "s.serve.textproto")
        with open(self.serve, "w", encoding="utf-8") as f:
            f.write(SERVE)
        self.podsim = self.write("podsim", FAKE_PODSIM)
        os.chmod(self.podsim, os.stat(self.podsim).st_mode | stat.S_IXUSR)

    def test_relative_paths_become_absolute_from_the_files_directory(self):
        text = sweep.absolute_paths(SERVE, "/x/y/workloads/serve")
        self.assertIn('topology: "/x/y/topologies/v5e-4x4.textproto"', text)
        self.assertIn('workload: "/abs/w.textproto"', text)  # already absolute
        self.assertIn('draft_workload: "/x/y/workloads/serve/d.textproto"', text)
        self.assertIn('file: "/x/y/workloads/serve/t.csv"', text)

    def test_fields_and_variants(self):
        self.assertIn("acceptance_rate: 0.25 ", sweep.set_field(SERVE, "acceptance_rate", "0.25"))
        self.assertIn("speedup: 8 }", sweep.set_field(SERVE, "speedup", "8"))
        self.assertTrue(sweep.has_field(SERVE, "speedup"))
        self.assertFalse(sweep.has_field(SERVE, "rate_per_s"))
        plain = sweep.apply_variant(SERVE, [r"speculative \{[^}]*\}=>"], "v")
        self.assertNotIn("speculative", plain)
        with self.assertRaisesRegex(sweep.InputError, "matches nothing"):
            sweep.apply_variant(SERVE, ["nothing here=>x"], "v")
        with self.assertRaisesRegex(sweep.InputError, "not PATTERN=>REPLACEMENT"):
            sweep.apply_variant(SERVE, ["no arrow"], "v")

    def test_runs_every_value_of_every_variant_and_a_reference_once(self):
        out = self.path("s.csv")
        png = self.path("s.png")
        r = self.run_script("--podsim", self.podsim, "--serve", self.serve, "--set",
                            "acceptance_rate", "--values", "0", "0.5", "1",
                            "--variant", "k4", "--variant", "k1", "draft_tokens: 4=>draft_tokens: 1",
                            "--variant", "none", r"speculative \{[^}]*\}=>",
                            "--csv", out, "--plot", png, "--y", "tpot_s.p50", "draft_tokens")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out, encoding="utf-8") as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[0], "variant,acceptance_rate,name,tpot_s.p50,draft_tokens,absolute")
        self.assertEqual(lines[1:], ["k4,0,x,0,4,1", "k4,0.5,x,0.5,4,1", "k4,1,x,1,4,1",
                                     "k1,0,x,0,1,1", "k1,0.5,x,0.5,1,1", "k1,1,x,1,1,1",
                                     "none,,x,-1,0,1"])
        self.assertGreater(support.png_size(png)[0], 400)
        # Replotting the CSV gives the same bytes.
        again = self.path("again.png")
        r = self.run_script("--from-csv", out, "--plot", again, "--y", "tpot_s.p50",
                            "draft_tokens")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(support.read_bytes(png), support.read_bytes(again))

    def test_bad_input_exits_2_naming_it_and_writes_nothing(self):
        out = self.path("s.csv")
        cases = [
            (["--serve", self.serve, "--set", "rate_per_s", "--values", "1"], "no field 'rate_per_s'"),
            (["--serve", self.serve, "--set", "speedup", "--values", "1", "--variant", "v",
              "zzz=>y"], "'zzz' matches nothing"),
            (["--serve", self.path("missing"), "--set", "speedup", "--values", "1"], "missing"),
            (["--from-csv", self.path("missing.csv"), "--plot", self.path("p.png")], "missing.csv"),
        ]
        for args, want in cases:
            r = self.run_script("--podsim", self.podsim, *args, "--csv", out)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(want, r.stderr)
            self.assertFalse(os.path.exists(out))
        r = self.run_script("--podsim", "/bin/false", "--serve", self.serve, "--set", "speedup",
                            "--values", "1", "--csv", out)
        self.assertEqual(r.returncode, 2)
        self.assertIn("podsim serve failed", r.stderr)
        self.assertFalse(os.path.exists(out))
        self.assert_no_partial_output()


if __name__ == "__main__":
    unittest.main()
