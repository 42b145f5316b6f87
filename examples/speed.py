# %% [markdown]
# # podsim in-process against a process per run (docs/python.md, "Speed")
#
# Times `podsim.run()` of the default workload against spawning `podsim run`,
# and a 1,000-point sweep (LLaMA-3-8B decode on the v5e 4x4, 5 batches x 200
# link bandwidths) through `podsim.sweep`, `podsim sweep` and a `podsim run`
# process per point (50 points timed). Medians of `timeit.repeat`.
#
#     PYTHONPATH=build/python /usr/bin/python3 examples/speed.py [--podsim build/src/cli/podsim]

# %%
import argparse
import os
import statistics
import subprocess
import tempfile
import time
import timeit

import podsim

parser = argparse.ArgumentParser()
parser.add_argument("--podsim", default="build/src/cli/podsim", help="the command line to compare with")
args = parser.parse_args()
SOURCE = os.environ.get("PODSIM_SOURCE_DIR", os.getcwd())
TOPOLOGY = os.path.join(SOURCE, "topologies/v5e-4x4.textproto")
WORKLOAD = os.path.join(SOURCE, "workloads/llama3-8b-decode-v5e.textproto")


def median(f, repeat):
    return statistics.median(timeit.repeat(f, number=1, repeat=repeat))


# %%
podsim.run()  # the extension loaded before timing
t_in = median(lambda: podsim.run(), 5)
t_cli = median(lambda: subprocess.run([args.podsim, "run", "--format", "binpb"],
                                      capture_output=True, check=True), 5)
print(f"default run: podsim.run() {t_in * 1e3:.1f} ms, a `podsim run` process {t_cli * 1e3:.1f} ms")

# %%
with tempfile.TemporaryDirectory() as tmp:
    sweep = os.path.join(tmp, "thousand.sweep.textproto")
    with open(sweep, "w", encoding="utf-8") as f:
        f.write(f'name: "thousand"\ntopology: "{TOPOLOGY}"\nworkload: "{WORKLOAD}"\n'
                'parameters { path: "workload.scenario.batch" '
                'values: ["16", "32", "64", "128", "256"] }\n'
                'parameters { path: "topology.torus.dims[0].link_bandwidth_gbps" '
                'also: "topology.torus.dims[1].link_bandwidth_gbps" '
                "linear { start: 10 stop: 209 step: 1 } }\n")
    t = median(lambda: list(podsim.sweep(sweep, jobs=2)), 3)
    print(f"1000 points, podsim.sweep(jobs=2): {t:.2f} s")
    t = median(lambda: podsim.to_dataframe(podsim.sweep(sweep, jobs=2)), 3)
    print(f"1000 points into a DataFrame (jobs=2): {t:.2f} s")
    t = median(lambda: subprocess.run([args.podsim, "sweep", sweep, "--jobs", "2", "--quiet"],
                                      capture_output=True, check=True), 3)
    print(f"1000 points, podsim sweep --jobs 2: {t:.2f} s")
    points = list(podsim.sweep(sweep))[:50]
    start = time.perf_counter()
    for r in points:
        sets = list(r.inputs.topology.overrides) + list(r.inputs.workload.overrides)
        subprocess.run([args.podsim, "run", "-t", TOPOLOGY, "-w", WORKLOAD, "--format", "csv"]
                       + [a for s in sets for a in ("--set", s)], capture_output=True, check=True)
    per = (time.perf_counter() - start) / len(points)
    print(f"a podsim run process per point: {per * 1e3:.1f} ms a point, {per * 1000:.0f} s per 1000")
print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
