"""podsim from Python: run, sweep and serve in-process (docs/python.md).

    import podsim
    r = podsim.run(set={"workload.scenario.batch": 64})   # a podsim.Result
    print(r.serving.step_time_us)
    df = podsim.to_dataframe(podsim.sweep("workloads/sweeps/x.textproto", jobs=2))

Results are the generated Protobuf messages of proto/podsim (result_pb2.Result,
serve_report_pb2.ServeReport), byte for byte what the command line prints with
--format binpb; this package is also their module root (`from podsim import
result_pb2`). The simulations run in C++ (the extension podsim._podsim) with the
GIL released, so Python threads run them side by side.
"""

import importlib
import io
import os

from podsim._errors import (  # noqa: F401 (the package's API)
    Diagnostic,
    Error,
    InputError,
    InternalError,
    LimitError,
    UsageError,
)
from podsim import result_pb2, serve_report_pb2  # noqa: F401

try:
    _podsim = importlib.import_module("podsim._podsim")
except ImportError as e:  # the build found no pybind11: the messages alone
    _podsim = None
    _import_error = e

__all__ = [
    "run",
    "sweep",
    "serve",
    "to_dataframe",
    "to_csv",
    "Result",
    "ServeReport",
    "Diagnostic",
    "Error",
    "InputError",
    "UsageError",
    "LimitError",
    "InternalError",
]

Result = result_pb2.Result
ServeReport = serve_report_pb2.ServeReport


def _extension():
    if _podsim is None:
        raise ImportError(
            "podsim's extension module is not built (it needs pybind11-dev and "
            "python3-dev when CMake configures; docs/python.md): " + str(_import_error)
        )
    return _podsim


def _path(value, name):
    if value is None:
        return None
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    raise UsageError(f"{name}: expected a file path, got {type(value).__name__}")


def _overrides(set):
    """`set` as --set arguments: a dict {path: value}, or "path=value" strings."""
    if set is None:
        return []
    if isinstance(set, str):
        set = [set]
    if isinstance(set, dict):
        out = []
        for path, value in set.items():
            if isinstance(value, bool):
                value = "true" if value else "false"
            elif isinstance(value, (list, tuple)):
                value = "[" + ",".join(str(v) for v in value) + "]"
            out.append(f"{path}={value}")
        return out
    try:
        items = list(set)
    except TypeError:
        raise UsageError(
            "set: expected a dict {path: value} or a list of 'path=value' strings, got "
            + type(set).__name__
        ) from None
    for item in items:
        if not isinstance(item, str):
            raise UsageError(f"set: expected 'path=value' strings, got {item!r}")
    return items


def _limits(max_events, max_memory_mb, max_wall_seconds):
    return dict(
        max_events=None if max_events is None else float(max_events),
        max_memory_mb=None if max_memory_mb is None else float(max_memory_mb),
        max_wall_seconds=None if max_wall_seconds is None else float(max_wall_seconds),
    )


def run(
    topology=None,
    workload=None,
    set=None,
    network=None,
    compute=None,
    calibration=None,
    pricing=None,
    allow_oom=False,
    *,
    packet_bytes=None,
    switching=None,
    op_table=None,
    vs_healthy=False,
    fold=True,
    symmetry=True,
    every_step=False,
    step_tolerance=None,
    link_stats=False,
    max_events=None,
    max_memory_mb=None,
    max_wall_seconds=None,
):
    """Simulates a workload on a pod: `podsim run` in-process.

    topology, workload: file paths; None for the embedded defaults (the v5e
    16x16 and LLaMA-3-70B decode), as the command line. set: overrides, a
    dict {path: value} or a list of "path=value" strings (--set). The other
    arguments are the command's options of the same names (podsim run
    --help); None leaves the command's default (network "flow", compute
    "roofline").

    Returns the podsim.Result (result_pb2.Result): the bytes `podsim run
    --format binpb` prints for the same inputs. Its status is ok, or oom for
    a step that does not fit in HBM without allow_oom (the CLI prints that
    result and exits 1). Raises InputError for inputs that break a rule
    (.result is the invalid result the CLI prints), UsageError for a bad
    argument, LimitError past a limit.
    """
    bytes_ = _extension().run(
        topology=_path(topology, "topology"),
        workload=_path(workload, "workload"),
        set=_overrides(set),
        network="flow" if network is None else str(network),
        packet_bytes=packet_bytes,
        switching=switching,
        compute="roofline" if compute is None else str(compute),
        op_table=_path(op_table, "op_table"),
        calibration=_path(calibration, "calibration"),
        pricing=_path(pricing, "pricing"),
        allow_oom=bool(allow_oom),
        vs_healthy=bool(vs_healthy),
        fold=bool(fold),
        symmetry=bool(symmetry),
        every_step=bool(every_step),
        step_tolerance=step_tolerance,
        link_stats=bool(link_stats),
        **_limits(max_events, max_memory_mb, max_wall_seconds),
    )
    result = result_pb2.Result()
    result.ParseFromString(bytes_)
    return result


def sweep(
    sweep_file,
    jobs=1,
    set=None,
    calibration=None,
    pricing=None,
    *,
    max_events=None,
    max_memory_mb=None,
    max_wall_seconds=None,
):
    """Runs every point of a sweep file on `jobs` threads: `podsim sweep`.

    A generator of podsim.Result messages in the sweep's order (point 0, 1,
    ...), each yielded as soon as it and the points before it are done; the
    results and their order are the same for any `jobs`, and each is the
    result `podsim sweep --format jsonl` writes for that point. A point
    that is invalid or does not fit is a result whose status says so; when
    every point is invalid the generator raises InputError after the last
    (the CLI's exit 2). Closing the generator early stops the points still
    to run. The sweep file is loaded when iteration starts.
    """
    ext = _extension()
    stream = ext.Sweep(
        sweep_file=_path(sweep_file, "sweep_file"),
        jobs=int(jobs),
        set=_overrides(set),
        calibration=_path(calibration, "calibration"),
        pricing=_path(pricing, "pricing"),
        **_limits(max_events, max_memory_mb, max_wall_seconds),
    )
    try:
        while True:
            bytes_ = stream.next()
            if bytes_ is None:
                return
            result = result_pb2.Result()
            result.ParseFromString(bytes_)
            yield result
    finally:
        stream.close()


def serve(
    serve_file,
    seed=None,
    pricing=None,
    set=None,
    *,
    requests=False,
    timeseries=False,
    no_bucket_error=False,
    no_prefix_cache=False,
    compare_no_prefix_cache=False,
    max_events=None,
    max_memory_mb=None,
    max_wall_seconds=None,
):
    """Simulates serving requests on a fleet of replicas: `podsim serve`.

    Returns the summary, a podsim.output.ServeReport (serve_report_pb2):
    the message `podsim serve --format json` prints. seed: the seed of
    arrivals and lengths in place of the file's (--seed). set: overrides as
    `podsim serve --set` takes them (a dict or "path=value" strings):
    serve.* paths change the serve file, topology.* and workload.* every
    replica's inputs, replicas[i].topology.* one entry's. With
    requests=True and/or timeseries=True, returns a tuple (report,
    requests DataFrame, timeseries DataFrame), the frames read from the CSVs
    --requests and --timeseries write (None for one not asked for).
    """
    report_bytes, requests_csv, timeseries_csv = _extension().serve(
        serve_file=_path(serve_file, "serve_file"),
        set=_overrides(set),
        seed=None if seed is None else int(seed),
        no_bucket_error=bool(no_bucket_error),
        no_prefix_cache=bool(no_prefix_cache),
        compare_no_prefix_cache=bool(compare_no_prefix_cache),
        pricing=_path(pricing, "pricing"),
        requests=bool(requests),
        timeseries=bool(timeseries),
        **_limits(max_events, max_memory_mb, max_wall_seconds),
    )
    report = serve_report_pb2.ServeReport()
    report.ParseFromString(report_bytes)
    if not requests and not timeseries:
        return report
    return (
        report,
        _read_csv(requests_csv) if requests else None,
        _read_csv(timeseries_csv) if timeseries else None,
    )


def _messages(results):
    if isinstance(results, (Result, ServeReport)):
        return [results]
    return list(results)


def to_csv(results):
    """The CSV text the command line writes for these results, in order.

    podsim.Result messages: what `podsim sweep` writes for them (one header,
    then each result's rows; one row per operation for an operation list);
    for one result, what `podsim run --format csv` prints. ServeReport
    messages: what `podsim serve --format csv` prints, the header once
    (reports whose columns differ, e.g. other SLO classes, raise
    UsageError; to_dataframe() takes them).
    """
    messages = _messages(results)
    if all(isinstance(m, Result) for m in messages):
        return _extension().results_csv([m.SerializeToString() for m in messages])
    if all(isinstance(m, ServeReport) for m in messages):
        header, rows = None, []
        for i, m in enumerate(messages):
            text = _extension().serve_report_csv(m.SerializeToString())
            first, _, rest = text.partition("\n")
            if header is None:
                header = first
            elif first != header:
                raise UsageError(
                    f"results[{i}]: its columns differ from the first report's; "
                    "to_dataframe() takes reports of different columns"
                )
            rows.append(rest)
        return "" if header is None else header + "\n" + "".join(rows)
    raise UsageError(
        "results: expected podsim.Result or podsim.output.ServeReport messages, not a mix"
    )


def _read_csv(text):
    import pandas

    # round_trip: each number is the double the CSV's shortest form stands
    # for, so a cell equals the message's field exactly.
    return pandas.read_csv(io.StringIO(text), float_precision="round_trip")


def to_dataframe(results):
    """A pandas DataFrame with the columns of the command line's CSV.

    results: podsim.Result messages (a list, a generator such as sweep(),
    or one), or ServeReport messages. The columns, their order and every
    cell are those of to_csv(results) (the CSV `podsim run --format csv` /
    `podsim sweep` / `podsim serve --format csv` writes) as
    pandas.read_csv reads them, numbers read back exactly. ServeReports
    with different columns are concatenated, a missing cell NaN.
    """
    import pandas

    messages = _messages(results)
    if messages and all(isinstance(m, ServeReport) for m in messages):
        frames = [_read_csv(_extension().serve_report_csv(m.SerializeToString())) for m in messages]
        return pandas.concat(frames, ignore_index=True)
    text = to_csv(messages)
    if not text:
        return pandas.DataFrame()
    return _read_csv(text)
