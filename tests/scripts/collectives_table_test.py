#!/usr/bin/python3
"""Tests of the closed forms and the marker handling of scripts/collectives_table.py,
against values worked out by hand from docs/collectives.md (no podsim needed).
"""

import importlib.util
import math
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "scripts", "collectives_table.py")

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
spec = importlib.util.spec_from_file_location("collectives_table", SCRIPT)
ct = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ct)

KIB, MIB = 1 << 10, 1 << 20


def dim(name, size, wraps, twisted=False, w1=50e9, alpha=1e-6):
    return ct.Dim(name=name, size=size, wraps=wraps, twisted=twisted, w1=w1, alpha=alpha)


V5E_4X4 = (dim("x", 4, False), dim("y", 4, False))
V5E_16X16 = (dim("x", 16, True), dim("y", 16, True))


class ClosedForms(unittest.TestCase):
    def test_all_reduce_over_two_lines(self):
        # 2 x [3 x (64 KiB / 50 GB/s + 1 us) + 3 x (16 KiB / 50 GB/s + 1 us)]
        want = 2 * (3 * (65536 / 50e9 + 1e-6) + 3 * (16384 / 50e9 + 1e-6))
        self.assertAlmostEqual(want * 1e6, 21.8304, places=9)
        case = ct.Case("ALL_REDUCE", 512 * KIB, "v5e-4x4.textproto", (("x", "y"),))
        self.assertAlmostEqual(ct.closed_form_seconds(case, V5E_4X4), want, places=15)

    def test_snake_is_one_16_chip_line(self):
        case = ct.Case("ALL_REDUCE", 512 * KIB, "v5e-4x4.textproto", (("x", "y"),),
                       algorithm="SNAKE_RING")
        # 2 x 15 x (32 KiB / 50 GB/s + 1 us) = 49.6608 us
        self.assertAlmostEqual(ct.closed_form_seconds(case, V5E_4X4) * 1e6, 49.6608, places=9)

    def test_all_gather_on_a_ring(self):
        case = ct.Case("ALL_GATHER", 1 << 30, "v5e-16x16.textproto", (("x",),))
        # 7 steps of 64 MiB, then the opposite chip's chunk, 32 MiB each way
        self.assertAlmostEqual(ct.closed_form_seconds(case, V5E_16X16),
                               7 * (67108864 / 50e9 + 1e-6) + (33554432 / 50e9 + 1e-6),
                               places=15)

    def test_twisted_dimension_is_a_line(self):
        twisted = (dim("x", 8, True, twisted=True, w1=100e9),)
        plain = (dim("x", 8, True, w1=100e9),)
        case = ct.Case("ALL_REDUCE", 256 * MIB, "t", (("x",),))
        chunk = 32 * MIB / 100e9 + 1e-6
        half = 16 * MIB / 100e9 + 1e-6
        self.assertAlmostEqual(ct.closed_form_seconds(case, twisted), 2 * 7 * chunk, places=15)
        self.assertAlmostEqual(ct.closed_form_seconds(case, plain), 2 * (3 * chunk + half),
                               places=15)

    def test_all_to_all_blocks(self):
        self.assertEqual(ct.exchange_blocks(dim("x", 16, True)), 32)  # n^2 / 8
        self.assertEqual(ct.exchange_blocks(dim("x", 4, True)), 2)
        self.assertEqual(ct.exchange_blocks(dim("x", 5, True)), 3)  # 1 + 2
        self.assertEqual(ct.exchange_blocks(dim("x", 4, False)), 4)  # 2 x 2
        case = ct.Case("ALL_TO_ALL", 64 * MIB, "v5e-4x4.textproto", (("x", "y"),))
        # b = 256 KiB; 4 x 4 blocks on the busiest link, 3 + 3 hops
        self.assertAlmostEqual(ct.closed_form_seconds(case, V5E_4X4),
                               16 * 262144 / 50e9 + 6e-6, places=15)
        # An even ring: its last whole-block segment is n/2 - 1 hops away.
        ring = ct.Case("ALL_TO_ALL", 256 * MIB, "v5e-16x16.textproto", (("x",),))
        self.assertAlmostEqual(ct.closed_form_seconds(ring, V5E_16X16),
                               32 * MIB / 50e9 + 7e-6, places=15)

    def test_broadcast(self):
        # The piece count nearest sqrt((D - 1) V / (W1 alpha)) (26.7, 42.2,
        # 70.6 -> at most 64), checked by hand against its neighbours.
        v = 17 * MIB

        def form(pieces, depth, nbytes=v):
            return (pieces - 1 + depth) * (math.ceil(nbytes / pieces) / 50e9 + 1e-6)

        for axes, algorithm, depth, pieces in (((("x",),), "", 3, 27), ((("x", "y"),), "", 6, 42),
                                               ((("x", "y"),), "SNAKE_RING", 15, 64)):
            case = ct.Case("BROADCAST", v, "v5e-4x4.textproto", axes, algorithm=algorithm)
            got = ct.closed_form_seconds(case, V5E_4X4)
            self.assertAlmostEqual(got, form(pieces, depth), places=15, msg=(axes, algorithm))
            if pieces < 64:
                self.assertLess(got, form(pieces + 1, depth))
            self.assertLess(got, form(pieces - 1, depth))
        # A buffer under two pieces' worth stays one piece.
        self.assertAlmostEqual(ct.chain_seconds(100, 3, 50e9, 1e-6), 3 * (100 / 50e9 + 1e-6),
                               places=18)

    def test_send_routes(self):
        case = ct.Case("SEND", 64 * MIB, "v5e-16x16.textproto", pair=((0, 0), (1, 3)))
        self.assertAlmostEqual(ct.closed_form_seconds(case, V5E_16X16),
                               64 * MIB / 100e9 + 4e-6, places=15)
        self.assertEqual(ct.send_routes(V5E_16X16, (0, 0), (8, 0)), 2)  # half way round
        self.assertEqual(ct.send_routes(V5E_16X16, (0, 0), (3, 0)), 1)
        self.assertEqual(ct.send_routes(V5E_4X4, (0, 0), (2, 0)), 1)  # a line

    def test_snake_order(self):
        order = [tuple(ct.snake_coords([4, 4], i)) for i in range(16)]
        self.assertEqual(order[:8], [(0, 0), (1, 0), (2, 0), (3, 0), (3, 1), (2, 1), (1, 1), (0, 1)])
        cube = [tuple(ct.snake_coords([2, 2, 2], i)) for i in range(8)]
        for a, b in zip(cube, cube[1:]):
            self.assertEqual(sum(abs(p - q) for p, q in zip(a, b)), 1, cube)
        self.assertFalse(ct.snake_unit(list(V5E_4X4)).ring)
        self.assertTrue(ct.snake_unit(list(V5E_16X16)).ring)


class Topology(unittest.TestCase):
    def test_twisted_dims_and_removal(self):
        text = ("torus {\n  dims { name: \"x\" size: 8 }\n"
                "  twists { dim: 0 shift_dim: 1 offset: 8 }\n"
                "  twists { shift_dim: 0 dim: 2 offset: 8 }\n}\n")
        self.assertEqual(ct.twisted_dims(text), {0, 2})
        self.assertEqual(ct.twisted_dims(ct.without_twists(text)), set())
        self.assertEqual(ct.without_twists(text), 'torus {\n  dims { name: "x" size: 8 }\n}\n')


class Document(unittest.TestCase):
    def test_replace_between_markers(self):
        text = f"intro\n{ct.BEGIN}\nold\n{ct.END}\nafter\n"
        self.assertEqual(ct.with_table(text, "f", "new\n"),
                         f"intro\n{ct.BEGIN}\nnew\n{ct.END}\nafter\n")

    def test_missing_marker(self):
        with self.assertRaises(ct.ScriptError):
            ct.with_table(f"{ct.END}\n{ct.BEGIN}\n", "f", "x\n")

    def test_write_atomically_keeps_mode(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "doc.md")
            with open(path, "w", encoding="utf-8") as f:
                f.write("a\n")
            os.chmod(path, 0o640)
            ct.write_atomically(path, "b\n")
            with open(path, encoding="utf-8") as f:
                self.assertEqual(f.read(), "b\n")
            self.assertEqual(os.stat(path).st_mode & 0o777, 0o640)
            self.assertEqual(os.listdir(d), ["doc.md"])


if __name__ == "__main__":
    unittest.main()
