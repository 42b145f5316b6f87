#!/usr/bin/env python3
"""podsim's JSON outputs load into the Python modules generated from their
schemas (build/python/podsim/*_pb2.py), as docs/outputs.md tells users to load
them. json_format.Parse rejects any key the schema lacks, so this also checks
that the JSON and the schema agree. Exits 77 (skipped) without google.protobuf.

Usage: load_outputs_test.py PODSIM PROTO_BUILD_DIR
"""
import os
import subprocess
import sys
import tempfile

try:
    from google.protobuf import json_format
except ImportError:
    print("google.protobuf not importable: skipped")
    sys.exit(77)

podsim, proto_dir = sys.argv[1], sys.argv[2]
sys.path.insert(0, proto_dir)
from podsim import comparison_pb2, serve_report_pb2, topology_report_pb2, trace_pb2  # noqa: E402


def run(*args):
    return subprocess.run([podsim, *args], check=False, capture_output=True, text=True)


topo = json_format.Parse(run("topo", "--format", "json").stdout,
                         topology_report_pb2.TopologyReport())
assert topo.chips == 256 and topo.shape == "16x16", topo
assert topo.HasField("diameter_hops") and topo.diameter_hops == 16

with tempfile.TemporaryDirectory() as tmp:
    trace_path = os.path.join(tmp, "t.json")
    r = run("run", "-t", "topologies/v5e-4x4.textproto", "-w",
            "workloads/llama3-8b-decode-v5e.textproto", "--trace", trace_path, "--quiet")
    assert r.returncode == 0, r.stderr
    with open(trace_path, encoding="utf-8") as f:
        trace = json_format.Parse(f.read(), trace_pb2.Trace())
    assert trace.displayTimeUnit == "ns"
    slices = [e for e in trace.traceEvents if e.ph == "X"]
    assert slices and all(e.args.HasField("dur_ps") for e in slices)
    assert trace.otherData.generator == "podsim run --trace"

    csv = run("run", "-t", "topologies/v5e-4x4.textproto", "-w",
              "workloads/llama3-8b-decode-v5e.textproto", "-f", "csv").stdout
    csv_path = os.path.join(tmp, "a.csv")
    with open(csv_path, "w", encoding="utf-8") as f:
        f.write(csv)
    r = run("compare", csv_path, csv_path, "--format", "json")
    assert r.returncode == 0, r.stderr
    comparison = json_format.Parse(r.stdout, comparison_pb2.Comparison())
    assert comparison.ok and comparison.scenarios_matched == 1 and not comparison.moved

with tempfile.TemporaryDirectory() as tmp:
    trace_path = os.path.join(tmp, "serve.json")
    r = run("serve", "workloads/serve/llama3-70b-azure-conv.serve.textproto", "--format", "json",
            "--trace", trace_path)
    assert r.returncode == 0, r.stderr
    with open(trace_path, encoding="utf-8") as f:
        serve_trace = json_format.Parse(f.read(), trace_pb2.Trace())
    steps = [e for e in serve_trace.traceEvents if e.ph == "X"]
    assert steps and all(e.args.HasField("dur_ps") for e in steps)
    assert serve_trace.otherData.generator == "podsim serve --trace"
serve = json_format.Parse(r.stdout, serve_report_pb2.ServeReport())
assert serve.requests == 300 and serve.completed == 300, serve
assert serve.ttft_s.p99 >= serve.ttft_s.p50 > 0 and len(serve.replicas) == 1

print("ok: topo, trace, compare and serve JSON load into their generated modules")
