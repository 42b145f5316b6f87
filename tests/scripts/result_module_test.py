#!/usr/bin/env python3
"""A Python user's view of podsim.Result: the module the build generates
loads what `podsim run` writes, in JSON and in binary, and agrees with it.
Exits 77 (skipped) when google.protobuf is not installed."""
import argparse
import json
import os
import subprocess
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--podsim", required=True)
    p.add_argument("--module-dir", required=True)
    p.add_argument("--scratch", required=True)
    a = p.parse_args()
    try:
        from google.protobuf import json_format
    except ImportError:
        print("google.protobuf not installed (python3-protobuf): skipped")
        return 77
    sys.path.insert(0, a.module_dir)
    from podsim import result_pb2

    args = [a.podsim, "run", "-q", "-n", "analytical", "-t", "topologies/v5e-4x4.textproto",
            "-w", "workloads/matmul-allreduce-v5e-4x4.textproto"]
    text = subprocess.run(args + ["--format", "json"], check=True, capture_output=True,
                          text=True).stdout
    r = json_format.Parse(text, result_pb2.Result())
    assert r.status == result_pb2.Result.ok, r.status
    assert r.schema_version == 14, r.schema_version
    assert [op.name for op in r.op_list.operations] == ["proj", "sum", "next"], r.op_list
    assert r.inputs.topology.dims[0].size == 4
    assert r.op_list.operations[1].collective.busbw_gbps > 0
    # The same numbers as a plain JSON reader sees them.
    plain = json.loads(text)
    assert plain["op_list"]["makespan_us"] == r.op_list.makespan_us
    binary = os.path.join(a.scratch, "result.binpb")
    with open(binary, "wb") as f:
        f.write(subprocess.run(args + ["--format", "binpb"], check=True,
                               capture_output=True).stdout)
    with open(binary, "rb") as f:
        b = result_pb2.Result.FromString(f.read())
    assert b == r, "binary and JSON results differ"
    print("ok: podsim.Result loads in Python from JSON and binary")
    return 0


if __name__ == "__main__":
    sys.exit(main())
