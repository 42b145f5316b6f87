"""The podsim Python module against the podsim command line (docs/python.md).

Every in-process result is compared with what the CLI prints for the same
inputs: run() with `podsim run --format binpb` (the bytes) and `--format csv`
(every cell), sweep() with `podsim sweep`'s CSV, serve() with `podsim serve
--format json`. Run by CTest (python.api) with PYTHONPATH the build's module
root, PODSIM_SOURCE_DIR the source tree and PODSIM_BINARY the CLI.
"""

import os
import subprocess
import threading

import pandas
import pandas.testing
import pytest
from google.protobuf import json_format

import podsim
from podsim import result_pb2, serve_report_pb2

SOURCE = os.environ.get("PODSIM_SOURCE_DIR", os.getcwd())
PODSIM = os.environ.get("PODSIM_BINARY", os.path.join(SOURCE, "build/src/cli/podsim"))

# A small pod and workload (16 chips, LLaMA-3-8B decode): a run is a fraction
# of a second.
TOPOLOGY = os.path.join(SOURCE, "topologies/v5e-4x4.textproto")
WORKLOAD = os.path.join(SOURCE, "workloads/llama3-8b-decode-v5e.textproto")
OP_LIST = os.path.join(SOURCE, "workloads/matmul-allreduce-v5e-4x4.textproto")
SERVE = os.path.join(SOURCE, "workloads/serve/llama3-8b-poisson.serve.textproto")


def cli(*args):
    """The CLI's stdout (bytes); fails the test on a non-zero exit."""
    done = subprocess.run([PODSIM, *args], capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


def small_sweep(tmp_path, extra=""):
    path = tmp_path / "small.sweep.textproto"
    path.write_text(
        f'name: "small"\n'
        f'topology: "{TOPOLOGY}"\n'
        f'workload: "{WORKLOAD}"\n'
        'parameters { path: "workload.scenario.batch" values: ["16", "32", "64", "128"] }\n'
        + extra
    )
    return str(path)


def deterministic(message):
    return message.SerializeToString(deterministic=True)


# --- run ---------------------------------------------------------------------


def test_run_is_the_cli_binpb():
    r = podsim.run(topology=TOPOLOGY, workload=WORKLOAD)
    assert isinstance(r, result_pb2.Result)
    assert r.status == result_pb2.Result.ok
    want = cli("run", "-t", TOPOLOGY, "-w", WORKLOAD, "--format", "binpb")
    assert deterministic(r) == want
    assert r == result_pb2.Result.FromString(want)


def test_run_defaults_are_the_cli_defaults():
    r = podsim.run()
    assert deterministic(r) == cli("run", "--format", "binpb")
    assert r.serving.step_time_us > 0


def test_run_operation_list_and_options():
    r = podsim.run(topology=TOPOLOGY, workload=OP_LIST, network="packet", packet_bytes=4096)
    want = cli("run", "-t", TOPOLOGY, "-w", OP_LIST, "--network", "packet",
               "--packet-bytes", "4096", "--format", "binpb")
    assert deterministic(r) == want
    assert len(r.op_list.operations) > 0


def test_to_csv_and_to_dataframe_are_the_cli_csv():
    r = podsim.run(topology=TOPOLOGY, workload=WORKLOAD)
    text = cli("run", "-t", TOPOLOGY, "-w", WORKLOAD, "--format", "csv").decode()
    assert podsim.to_csv(r) == text
    assert podsim.to_csv([r]) == text
    df = podsim.to_dataframe(r)
    import io

    want = pandas.read_csv(io.StringIO(text), float_precision="round_trip")
    assert list(df.columns) == text.splitlines()[0].split(",")
    pandas.testing.assert_frame_equal(df, want, check_exact=True)
    # The cells are the message's numbers exactly.
    assert df.loc[0, "serving.step_time_us"] == r.serving.step_time_us
    assert df.loc[0, "status"] == "ok"


def test_operation_list_rows_are_the_cli_csv():
    r = podsim.run(topology=TOPOLOGY, workload=OP_LIST)
    text = cli("run", "-t", TOPOLOGY, "-w", OP_LIST, "--format", "csv").decode()
    assert podsim.to_csv(r) == text
    assert len(podsim.to_dataframe(r)) == len(r.op_list.operations)


def test_set_overrides_as_dict_and_list_are_the_cli_set():
    as_dict = podsim.run(topology=TOPOLOGY, workload=WORKLOAD,
                         set={"workload.scenario.batch": 64,
                              "topology.torus.dims[0].link_bandwidth_gbps": 100})
    as_list = podsim.run(topology=TOPOLOGY, workload=WORKLOAD,
                         set=["workload.scenario.batch=64",
                              "topology.torus.dims[0].link_bandwidth_gbps=100"])
    want = cli("run", "-t", TOPOLOGY, "-w", WORKLOAD, "--format", "binpb",
               "--set", "workload.scenario.batch=64",
               "--set", "topology.torus.dims[0].link_bandwidth_gbps=100")
    assert deterministic(as_dict) == want
    assert deterministic(as_list) == want
    assert as_dict.inputs.serving.scenario.batch == 64
    base = podsim.run(topology=TOPOLOGY, workload=WORKLOAD)
    assert base.inputs.serving.scenario.batch != 64


def test_run_is_deterministic():
    a = podsim.run(topology=TOPOLOGY, workload=WORKLOAD)
    b = podsim.run(topology=TOPOLOGY, workload=WORKLOAD)
    assert deterministic(a) == deterministic(b)


def test_threads_run_side_by_side_with_the_same_results():
    want = deterministic(podsim.run(topology=TOPOLOGY, workload=WORKLOAD))
    got = [None] * 4
    errors = []

    def one(i):
        try:
            got[i] = deterministic(podsim.run(topology=TOPOLOGY, workload=WORKLOAD))
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert got == [want] * 4


# --- errors ------------------------------------------------------------------


def test_bad_field_raises_input_error_naming_file_and_field(tmp_path):
    bad = tmp_path / "bad-topology.textproto"
    text = open(TOPOLOGY).read().replace("size: 4", "size: 0", 1)
    assert text != open(TOPOLOGY).read()
    bad.write_text(text)
    with pytest.raises(podsim.InputError) as caught:
        podsim.run(topology=str(bad), workload=WORKLOAD)
    e = caught.value
    assert isinstance(e, podsim.Error) and isinstance(e, Exception)
    assert str(bad) in str(e)
    assert e.diagnostics, "no diagnostics"
    d = e.diagnostics[0]
    assert d.file == str(bad)
    assert "size" in d.field
    assert d.line > 0 and d.reason
    assert d.field in str(e)
    # The result the CLI prints before it exits 2, status invalid.
    assert e.result.status == result_pb2.Result.invalid
    done = subprocess.run([PODSIM, "run", "-t", str(bad), "-w", WORKLOAD, "--format", "binpb"],
                          capture_output=True, check=False)
    assert done.returncode == 2
    assert deterministic(e.result) == done.stdout


def test_bad_override_raises_input_error():
    with pytest.raises(podsim.InputError) as caught:
        podsim.run(topology=TOPOLOGY, workload=WORKLOAD, set={"workload.scenario.nonsense": 1})
    assert "workload.scenario.nonsense" in str(caught.value)
    with pytest.raises(podsim.InputError) as caught:
        podsim.run(set=["no-equals-sign"])
    assert caught.value.diagnostics[0].file == "--set"


def test_missing_file_raises_input_error(tmp_path):
    missing = str(tmp_path / "missing.textproto")
    with pytest.raises(podsim.InputError, match="missing.textproto"):
        podsim.run(topology=missing)
    with pytest.raises(podsim.InputError, match="missing.textproto"):
        list(podsim.sweep(missing))
    with pytest.raises(podsim.InputError, match="missing.textproto"):
        podsim.serve(missing)


def test_usage_errors():
    with pytest.raises(podsim.UsageError, match="network"):
        podsim.run(network="bogus")
    with pytest.raises(podsim.UsageError, match="packet"):
        podsim.run(packet_bytes=4096)  # the flow network has no packets
    with pytest.raises(podsim.UsageError, match="GENERATION"):
        podsim.run(every_step=True)
    with pytest.raises(podsim.UsageError, match="jobs"):
        list(podsim.sweep("x", jobs=0))
    with pytest.raises(podsim.UsageError):
        podsim.run(set=42)
    with pytest.raises(podsim.UsageError):
        podsim.to_csv(["not a message"])


def test_limit_error():
    with pytest.raises(podsim.LimitError, match="events"):
        podsim.run(topology=TOPOLOGY, workload=WORKLOAD, max_events=10)


# --- sweep -------------------------------------------------------------------


def test_sweep_yields_every_point_as_the_cli_csv(tmp_path):
    sweep_file = small_sweep(tmp_path)
    results = list(podsim.sweep(sweep_file, jobs=2))
    assert [r.inputs.serving.scenario.batch for r in results] == [16, 32, 64, 128]
    text = cli("sweep", sweep_file, "--quiet").decode()
    assert podsim.to_csv(results) == text
    import io

    want = pandas.read_csv(io.StringIO(text), float_precision="round_trip")
    pandas.testing.assert_frame_equal(podsim.to_dataframe(results), want, check_exact=True)


def test_sweep_is_the_same_for_any_jobs_and_the_cli_jsonl(tmp_path):
    sweep_file = small_sweep(tmp_path)
    one = [deterministic(r) for r in podsim.sweep(sweep_file, jobs=1)]
    three = [deterministic(r) for r in podsim.sweep(sweep_file, jobs=3)]
    assert one == three
    lines = cli("sweep", sweep_file, "--format", "jsonl", "--quiet").decode().splitlines()
    assert [deterministic(json_format.Parse(line, result_pb2.Result())) for line in lines] == one


def test_sweep_set_and_invalid_points(tmp_path):
    sweep_file = small_sweep(tmp_path)
    results = list(podsim.sweep(sweep_file, set={"workload.scenario.context_len": 256}))
    assert all(r.inputs.serving.scenario.context_len == 256 for r in results)
    text = cli("sweep", sweep_file, "--quiet", "--set", "workload.scenario.context_len=256")
    assert podsim.to_csv(results) == text.decode()
    bad = tmp_path / "bad.sweep.textproto"
    # batch 8: 8 sequences cannot split by batch over 16 chips (invalid)
    bad.write_text(open(sweep_file).read().replace('"128"', '"8"'))
    statuses = [r.status for r in podsim.sweep(str(bad))]
    assert statuses[:3] == [result_pb2.Result.ok] * 3
    assert statuses[3] == result_pb2.Result.invalid


def test_sweep_every_point_invalid_raises_after_the_last(tmp_path):
    bad = tmp_path / "all-bad.sweep.textproto"
    bad.write_text(open(small_sweep(tmp_path)).read().replace(
        '["16", "32", "64", "128"]', '["8", "24"]'))
    seen = []
    with pytest.raises(podsim.InputError, match="every point is invalid"):
        for r in podsim.sweep(str(bad)):
            seen.append(r.status)
    assert seen == [result_pb2.Result.invalid] * 2


def test_sweep_closed_early_stops(tmp_path):
    gen = podsim.sweep(small_sweep(tmp_path), jobs=2)
    first = next(gen)
    assert first.inputs.serving.scenario.batch == 16
    gen.close()  # returns once the points being computed are done


# --- serve -------------------------------------------------------------------


def test_serve_is_the_cli_json():
    report = podsim.serve(SERVE)
    assert isinstance(report, serve_report_pb2.ServeReport)
    want = json_format.Parse(cli("serve", SERVE, "--format", "json"),
                             serve_report_pb2.ServeReport())
    assert report == want
    assert report.completed > 0


def test_serve_set_is_the_cli_set():
    overrides = {"serve.replicas[0].max_batch": 8, "serve.slo.ttft_ms": 500}
    report = podsim.serve(SERVE, set=overrides)
    want = json_format.Parse(
        cli("serve", SERVE, "--format", "json", "--set", "serve.replicas[0].max_batch=8",
            "--set", "serve.slo.ttft_ms=500"),
        serve_report_pb2.ServeReport())
    assert report == want
    assert list(report.inputs.overrides) == ["serve.replicas[0].max_batch=8",
                                             "serve.slo.ttft_ms=500"]
    assert report.inputs.replicas[0].max_batch == 8
    assert report.slo_ttft_ms == 500
    with pytest.raises(podsim.InputError, match="max_bach"):
        podsim.serve(SERVE, set={"serve.replicas[0].max_bach": 8})


def test_serve_seed_requests_and_csv(tmp_path):
    requests_file = tmp_path / "requests.csv"
    report, requests, timeseries = podsim.serve(SERVE, seed=11, requests=True)
    assert timeseries is None
    cli("serve", SERVE, "--seed", "11", "--requests", str(requests_file))
    import io

    want = pandas.read_csv(io.StringIO(requests_file.read_text()), float_precision="round_trip")
    pandas.testing.assert_frame_equal(requests, want, check_exact=True)
    assert len(requests) == report.requests
    assert report != podsim.serve(SERVE)  # another seed, other arrivals
    text = cli("serve", SERVE, "--seed", "11", "--format", "csv").decode()
    assert podsim.to_csv(report) == text
    df = podsim.to_dataframe([report, report])
    assert len(df) == 2
    assert list(df.columns) == text.splitlines()[0].split(",")
