#!/usr/bin/env bash
# Times whole `podsim serve` runs (docs/serving.md) and prints median and
# minimum wall time and peak memory over RUNS runs:
#   the Azure LLM inference conversation trace, all 19,366 requests, on one
#   LLaMA-3-70B replica (v5e 4x4, chunked prefill)          [target: < 10 s]
#   one million Poisson requests on eight such replicas     [target: < 2 min]
#   the same, writing the per-request CSV (streamed to its file: the same
#   peak memory as without it)
# The whole trace is not shipped (CC-BY-4.0; workloads/serve/ holds 300 rows):
# give its path (AzureLLMInferenceTrace_conv.csv, from
# https://github.com/Azure/AzurePublicDataset, "AzureLLMInferenceDataset2023"),
# or set PODSIM_AZURE_CONV; without it the trace case is skipped, said so.
# Usage: scripts/bench-fleet.sh [RUNS] [AZURE_CONV_CSV]   (default 3; needs a build in build/)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
trace=${2:-${PODSIM_AZURE_CONV:-}}
podsim=build/src/cli/podsim
[ -x "$podsim" ] || { echo "bench-fleet: build first (scripts/build.sh)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
here=$(pwd)

printf '%-34s %10s %10s %10s\n' case wall_s_med wall_s_min rss_MiB
if [ -f "$trace" ]; then
  sed -e "s|file: \"azure-conv-300.csv\"|file: \"$(realpath "$trace")\"|" \
      -e "s|\"../../topologies/|\"$here/topologies/|" \
      -e "s|workload: \"|workload: \"$here/workloads/serve/|" \
      workloads/serve/llama3-70b-azure-conv.serve.textproto > "$tmp/azure.serve.textproto"
  scripts/time-command.sh "$runs" "Azure conv trace, 70B x1" -- \
    "$podsim" serve "$tmp/azure.serve.textproto" --format csv
else
  echo "bench-fleet: no Azure conversation trace at '$trace' (argument 2 or PODSIM_AZURE_CONV); skipping the Azure run" >&2
fi
cat > "$tmp/million.serve.textproto" <<EOT
name: "million"
replicas {
  topology: "$here/topologies/v5e-4x4.textproto"
  workload: "$here/workloads/serve/llama3-70b-v5e-4x4.textproto"
  count: 8
  scheduler: CHUNKED_PREFILL
  max_batch: 128
  max_tokens_per_step: 2048
}
router: LEAST_OUTSTANDING_TOKENS
arrivals {
  poisson { rate_per_s: 30 }
  prompt_tokens { exponential { mean: 1000 max: 8000 } }
  output_tokens { exponential { mean: 200 max: 1000 } }
}
requests: 1000000
seed: 1
EOT
scripts/time-command.sh "$runs" "1M Poisson requests, 70B x8" -- \
  "$podsim" serve "$tmp/million.serve.textproto" --format csv
scripts/time-command.sh "$runs" "1M Poisson, 70B x8, --requests" -- \
  "$podsim" serve "$tmp/million.serve.textproto" --format csv --requests "$tmp/requests.csv"
