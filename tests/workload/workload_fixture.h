// Models, meshes and program queries shared by the workload tests. Model
// architectures are the published ones; expectations in the tests are
// computed by hand from them, never from the lowering's own helpers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chip/ops.h"
#include "config/serving_spec.h"
#include "workload/program.h"

namespace podsim::workload::testing {

// Meta LLaMA 3 model card / config.json: 32 layers, d 4096, 32 heads, 8 KV
// heads of 128, SwiGLU FFN 14336, vocabulary 128256, untied embeddings.
config::ModelSpec llama3_8b();
// 80 layers, d 8192, 64 heads, 8 KV heads of 128, FFN 28672.
config::ModelSpec llama3_70b();
// A small mixture of experts: 4 layers (layer 0 dense), d 1024, 16 heads
// (16 KV), 16 routed experts of 512, top-2, one shared expert, FFN 2048.
config::ModelSpec small_moe();
// A model wide enough to shard 256 ways in 1D: d 16384, 256 heads of 64
// (multi-head), FFN 65536, vocabulary 131072, 4 layers.
config::ModelSpec wide_model();

config::ServingSpec decode(const config::ModelSpec& model, uint32_t batch, uint32_t context_len,
                           config::ShardingSpec sharding = {});
config::ServingSpec prefill(const config::ModelSpec& model, uint32_t batch, uint32_t prompt_len,
                            config::ShardingSpec sharding = {});

MeshAxes mesh(std::vector<std::pair<std::string, uint32_t>> axes);

// Instructions of a stage whose name ends with `suffix` (e.g. ".attn.qkv").
std::vector<const Instruction*> named(const StageProgram& stage, std::string_view suffix);
const chip::Matmul& matmul(const Instruction& ins);
const chip::Attention& attention(const Instruction& ins);
const config::CollectiveSpec& collective(const Instruction& ins);
bool is_compute(const Instruction& ins);

// Per-chip bytes each collective moves by the textbook ring costs (V as in
// workload.proto, N chips in the group): all-gather and reduce-scatter
// V (N-1)/N, all-reduce 2 V (N-1)/N, all-to-all V (N-1)/N^2.
double wire_bytes_per_chip(const StageProgram& stage, const MeshAxes& mesh);

// Whether instruction `to` waits, directly or through other instructions
// (compute also waits for the previous compute instruction), for `from`.
std::vector<std::vector<bool>> reachability(const StageProgram& stage);

// Every field of every instruction, as text (for determinism checks).
std::string fingerprint(const Program& program);

}  // namespace podsim::workload::testing
