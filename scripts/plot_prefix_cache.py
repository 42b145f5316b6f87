#!/usr/bin/python3
"""TTFT with and without prefix caching, from two `podsim serve` runs, as a PNG.

Reads two per-request CSVs (`podsim serve --requests FILE`) of the same
arrivals: one with prefix caching (its `cached_prompt_tokens` column gives the
hit rate in the title) and one without (`podsim serve --no-prefix-cache`),
and draws the distributions (empirical CDFs) of their TTFT in milliseconds,
p50/p90/p99 marked (nearest rank, as podsim's summary). docs/serving.md,
"Prefix caching", describes the runs.

Exit codes: 0 ok, 2 bad input or usage, or matplotlib missing (the message
names the file, the line and what is wrong; no image is written). The image is
written whole or not at all, with no timestamp in it.

Example:
  podsim serve workloads/serve/llama3-8b-prefix-cache.serve.textproto --requests with.csv
  podsim serve workloads/serve/llama3-8b-prefix-cache.serve.textproto --no-prefix-cache \\
      --requests without.csv
  scripts/plot_prefix_cache.py with.csv without.csv --out prefix-cache.png
"""

import argparse
import csv
import io
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_common import EXIT_BAD_INPUT, InputError, pyplot, save  # noqa: E402

# Paul Tol's colour-blind-safe "bright" scheme, as plot_serve.py.
COLOURS = ("#4477AA", "#EE6677")


def rows(path):
    try:
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read: {e}") from None
    reader = csv.DictReader(io.StringIO(text))
    needed = ["status", "ttft_s", "prompt_tokens", "cached_prompt_tokens"]
    missing = [c for c in needed if c not in (reader.fieldnames or [])]
    if missing:
        raise InputError(f"{path}: missing column(s) {', '.join(missing)}")
    return list(reader)


def number(value, path, line, key):
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{path}:{line}: '{key}' is not a number: {value!r}") from None
    if not math.isfinite(v) or v < 0:
        raise InputError(f"{path}:{line}: '{key}' must be a finite number >= 0, got {value}")
    return v


def run(path):
    """(sorted TTFTs in ms of the completed requests, hit rate over them)."""
    ttft = []
    prompt = cached = 0.0
    for i, row in enumerate(rows(path), start=2):
        if row["status"] != "ok":
            continue
        ttft.append(number(row["ttft_s"], path, i, "ttft_s") * 1e3)
        prompt += number(row["prompt_tokens"], path, i, "prompt_tokens")
        cached += number(row["cached_prompt_tokens"], path, i, "cached_prompt_tokens")
    if not ttft:
        raise InputError(f"{path}: no completed request to plot")
    return sorted(ttft), (cached / prompt if prompt > 0 else 0.0)


def percentile(values, p):
    """Nearest rank, as podsim's summary computes it."""
    k = max(1, math.ceil(p / 100 * len(values)))
    return values[k - 1]


def draw(runs, title, out):
    plt = pyplot("plot_prefix_cache")
    fig, ax = plt.subplots(figsize=(8, 3.6))
    for (label, v), colour in zip(runs, COLOURS):
        ax.step(v, [(i + 1) / len(v) for i in range(len(v))], where="post", color=colour,
                label=f"{label} (p50 {percentile(v, 50):.0f}, p90 {percentile(v, 90):.0f}, "
                      f"p99 {percentile(v, 99):.0f} ms)")
        for p in (50, 90, 99):
            ax.plot([percentile(v, p)], [p / 100], marker="o", color=colour, markersize=3)
    ax.set_xscale("log")
    ax.set_xlabel("TTFT (ms)")
    ax.set_ylabel("fraction of requests")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    save(fig, out)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("with_cache", help="podsim serve --requests CSV, prefix caching on")
    parser.add_argument("without_cache", help="the same run's CSV with --no-prefix-cache")
    parser.add_argument("--title", default="TTFT with and without prefix caching",
                        help="chart title (the hit rate is appended)")
    parser.add_argument("--out", default="prefix-cache.png", help="PNG to write")
    args = parser.parse_args(argv)
    try:
        with_ttft, hit = run(args.with_cache)
        without_ttft, _ = run(args.without_cache)
        if len(with_ttft) != len(without_ttft):
            raise InputError(f"{args.without_cache}: {len(without_ttft)} completed requests, "
                             f"{args.with_cache} {len(with_ttft)}: not the same arrivals")
    except InputError as e:
        print(f"plot_prefix_cache: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    draw([("with prefix cache", with_ttft), ("without", without_ttft)],
         f"{args.title}: hit rate {100 * hit:.1f}% of prompt tokens", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
