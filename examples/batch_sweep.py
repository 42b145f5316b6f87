# %% [markdown]
# # What do faster links buy at each batch? (README, "What-if studies")
#
# The README's sweep, in-process: LLaMA-3-70B decode (16-way tensor parallel x
# 16 replicas) on the TPU v5e 16x16 slice, both torus dimensions' link
# bandwidth at 25, 50, 100 and 200 GB/s (the shipped figure is 50) and the
# batch from 16 to 1024: 28 points, the same rows as
#
#     build/src/cli/podsim sweep workloads/sweeps/llama3-70b-decode-link-bandwidth-x-batch.textproto \
#         --jobs 2 --out sweep.csv
#
# Run as a script (`PYTHONPATH=build/python /usr/bin/python3
# examples/batch_sweep.py`) or cell by cell in an editor that knows `# %%`
# cells (VS Code, Spyder, Jupytext). `--check` (CTest python.example_batch_sweep)
# also checks what the study should show; `--plot FILE` draws it (matplotlib).

# %%
import argparse
import os
import sys
import time

import podsim

SOURCE = os.environ.get("PODSIM_SOURCE_DIR", os.getcwd())
SWEEP = os.path.join(SOURCE, "workloads/sweeps/llama3-70b-decode-link-bandwidth-x-batch.textproto")

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--jobs", type=int, default=2, help="points simulated at once (threads)")
parser.add_argument("--check", action="store_true", help="exit 1 unless the study shows what it should")
parser.add_argument("--plot", help="write a PNG of tokens/s against batch, a line per bandwidth")
args = parser.parse_args(sys.argv[1:] if __name__ == "__main__" else [])

# %% [markdown]
# ## Run the sweep
# `podsim.sweep` yields a `podsim.Result` per point, in the sweep's order, as
# the worker threads finish them; `to_dataframe` gives the columns of the
# command line's CSV.

# %%
start = time.perf_counter()
results = list(podsim.sweep(SWEEP, jobs=args.jobs))
print(f"{len(results)} points in {time.perf_counter() - start:.2f} s", file=sys.stderr)
df = podsim.to_dataframe(results)
df["link_bandwidth_gbps"] = [r.inputs.topology.dims[0].link_bandwidth_gbps for r in results]
df["batch"] = df["inputs.serving.scenario.batch"]

# %% [markdown]
# ## Step time (us) and tokens/s per chip, bandwidth x batch
# A point that does not fit in HBM has status `oom` and no step time.

# %%
ok = df[df["status"] == "ok"]
step_us = ok.pivot(index="batch", columns="link_bandwidth_gbps", values="serving.step_time_us")
tokens = ok.pivot(index="batch", columns="link_bandwidth_gbps",
                  values="serving.tokens_per_s_per_chip")
print("step time (us), LLaMA-3-70B decode on v5e 16x16, by link bandwidth (GB/s):")
print(step_us.round(1).to_string())
print("\ntokens/s per chip:")
print(tokens.round(1).to_string())
print("\nstep time at 50 GB/s over step time at 200 GB/s (what 4x faster links buy):")
print((step_us[50.0] / step_us[200.0]).round(3).to_string())
for status, count in df["status"].value_counts().sort_index().items():
    print(f"{status}: {count} points")

# %% [markdown]
# ## The same README paragraph's torus shapes
# "4x4x4 against 16x4 and 16x2x2 at 64 chips (LLaMA-3-70B decode, 16-way
# tensor parallel)": `workloads/sweeps/torus-shape-64-chips.textproto`, 3 points.

# %%
shapes = {
    "x".join(str(d.size) for d in r.inputs.topology.dims if d.size > 1): r.serving.step_time_us
    for r in podsim.sweep(os.path.join(SOURCE, "workloads/sweeps/torus-shape-64-chips.textproto"))
}
for shape, us in shapes.items():
    print(f"{shape}: {us:.0f} us per step")

# %% [markdown]
# ## Plot (optional: matplotlib)

# %%
if args.plot:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for bandwidth in tokens.columns:
        ax.plot(tokens.index, tokens[bandwidth], marker="o", label=f"{bandwidth:g} GB/s")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("batch")
    ax.set_ylabel("tokens/s per chip")
    ax.set_title("LLaMA-3-70B decode, v5e 16x16: link bandwidth x batch")
    ax.legend(title="ICI link")
    fig.tight_layout()
    fig.savefig(args.plot)
    print(f"wrote {args.plot}")

# %% [markdown]
# ## What the study should show (`--check`)
# 4 x 7 = 28 points, the README's count; each point's link bandwidth is the
# one it set; at every batch faster links never make the step slower, and
# the same point run alone (`podsim.run` with the point's overrides) gives
# the same result; the 3D torus beats both flatter shapes.

# %%
if args.check:
    assert len(results) == 28, len(results)
    assert sorted(set(df["link_bandwidth_gbps"])) == [25, 50, 100, 200]
    assert sorted(set(df["batch"])) == [16, 32, 64, 128, 256, 512, 1024]
    assert (df["status"] == "ok").sum() > 0
    for batch, row in step_us.iterrows():
        values = [v for v in row.values if v == v]  # NaN: did not fit
        assert values == sorted(values, reverse=True), (batch, values)
    last = results[-1]
    alone = podsim.run(
        topology=os.path.join(SOURCE, "topologies/v5e-16x16.textproto"),
        workload=os.path.join(SOURCE, "workloads/llama3-70b-decode-v5e.textproto"),
        set=list(last.inputs.topology.overrides) + list(last.inputs.workload.overrides),
    )
    assert alone.serving.step_time_us == last.serving.step_time_us
    assert shapes["4x4x4"] < min(shapes["16x4"], shapes["16x2x2"]), shapes
    print("check: ok")
