// lower(): the stage programs, in stage order so that each stage can point
// its receives at the previous stage's transfers.
//
// Instruction order within a stage (compute runs in this order):
//  - with a pipeline, micro-batch by micro-batch: a stage runs one
//    micro-batch through all its layers and hands it on before the next, so
//    the next stage can start early (a forward pipeline then takes about
//    M + P - 1 micro-batch times, P - 1 of them bubble);
//  - without one, block by block: each attention or FFN block runs for every
//    micro-batch before the next block, so one micro-batch's collectives
//    overlap another's compute;
//  - a prefill in K sequential chunks (no pipeline) runs chunk after chunk,
//    each through the whole model, so only one chunk's activations are live;
//    the chunks' streams are numbered on (chunk k's are k x M ... k x M +
//    M - 1) and every chunk's KV cache stays. Weight-gathered, the chunks
//    run inside each layer instead (chunk after chunk through layer l, then
//    layer l + 1), so each layer's weights are gathered once for all of
//    them: chunk after chunk through the whole model would gather every
//    layer K times. Every chunk's residual stream is then live between
//    layers, one chunk's working set within one; where that does not fit,
//    the study layer asks for a gather per chunk
//    (scenario.regather_chunk_weights).
#include <algorithm>
#include <span>
#include <vector>

#include "workload/layer_emitter.h"
#include "workload/memory.h"
#include "workload/model_math.h"
#include "workload/program.h"
#include "workload/program_builder.h"
#include "workload/shard_plan.h"

namespace podsim::workload {
namespace {

using internal::LayerEmitter;
using internal::Layout;
using internal::ProgramBuilder;
using internal::ShardPlan;
using internal::StageExtent;
using internal::Stream;

struct StageResult {
  StageProgram program;
  MemoryFootprint memory;
  std::vector<int32_t> transfers;  // per micro-batch; -1 on the last stage
  std::vector<Layout> layouts;     // the layout each micro-batch leaves in
  CollectiveMatmulUse collective_matmul;
};

void run_micro_batch_major(LayerEmitter& em, ProgramBuilder& b, const StageExtent& stage,
                           std::vector<Stream>& streams, StageResult& out) {
  for (Stream& s : streams) {
    if (stage.first)
      em.embedding(s);
    for (uint32_t l = stage.first_layer; l < stage.first_layer + stage.layers; ++l) {
      em.layer(s, l);
    }
    if (stage.last) {
      em.lm_head(s);
      continue;
    }
    em.settle(s);
    b.set_context(-1, s.micro_batch);
    const StageTransfer send{+1, em.residual_bytes(s.layout)};
    const auto t = b.communicate("stage.send", OpClass::kStageTransfer, send, {s.residual});
    out.transfers[s.micro_batch] = static_cast<int32_t>(t);
  }
}

// One layer's blocks for `streams`: each block for every stream before the
// next block, so one stream's collectives overlap another's compute.
void run_layer(LayerEmitter& em, uint32_t l, std::span<Stream> streams, bool parallel_block) {
  if (parallel_block) {  // one block per layer
    for (Stream& s : streams)
      em.layer(s, l);
    return;
  }
  for (Stream& s : streams)
    em.attention(s, l);
  for (Stream& s : streams)
    em.ffn(s, l);
}

// Block by block through every layer, `chunks` groups of streams one after
// another: chunk-major, each group through the whole model before the next;
// layer-major, every group through layer l before layer l + 1 (a
// weight-gathered layer's gathers then serve every group: the emitter's
// weight slots still hold layer l).
void run_block_major(LayerEmitter& em, const StageExtent& stage, std::span<Stream> streams,
                     uint32_t chunks, bool layer_major, bool parallel_block) {
  const size_t per_chunk = streams.size() / chunks;
  const auto chunk = [&](uint32_t k) { return streams.subspan(k * per_chunk, per_chunk); };
  const uint32_t end = stage.first_layer + stage.layers;
  if (layer_major) {
    for (Stream& s : streams)
      em.embedding(s);
    for (uint32_t l = stage.first_layer; l < end; ++l)
      for (uint32_t k = 0; k < chunks; ++k)
        run_layer(em, l, chunk(k), parallel_block);
    for (Stream& s : streams)
      em.lm_head(s);
    return;
  }
  for (uint32_t k = 0; k < chunks; ++k) {
    for (Stream& s : chunk(k))
      em.embedding(s);
    for (uint32_t l = stage.first_layer; l < end; ++l)
      run_layer(em, l, chunk(k), parallel_block);
    for (Stream& s : chunk(k))
      em.lm_head(s);
  }
}

StageResult lower_stage(const ShardPlan& plan, uint32_t stage_index, const StageResult* previous) {
  const uint32_t stages = static_cast<uint32_t>(plan.pipeline.chips);
  const StageExtent stage{stage_index * plan.layers_per_stage, plan.layers_per_stage,
                          stage_index == 0, stage_index + 1 == stages};
  ProgramBuilder b(plan.overlap);
  LayerEmitter em(plan, b);
  StageResult out;
  const uint32_t stream_count = plan.micro_batches * plan.chunks;
  out.transfers.assign(stream_count, -1);
  std::vector<Stream> streams(stream_count);
  for (uint32_t mb = 0; mb < stream_count; ++mb) {
    streams[mb].micro_batch = mb;
    if (previous != nullptr) {
      streams[mb].layout = previous->layouts[mb];
      b.expect_receive(mb, previous->transfers[mb]);
    }
  }
  if (stages > 1)
    run_micro_batch_major(em, b, stage, streams, out);
  else
    run_block_major(em, stage, streams, plan.chunks, plan.chunks_share_gathers,
                    plan.model.parallel_block);
  for (const Stream& s : streams)
    out.layouts.push_back(s.layout);

  out.memory.weight_bytes = internal::stage_weight_bytes(plan, stage) + em.gathered_weight_bytes();
  out.memory.kv_cache_bytes = internal::stage_kv_cache_bytes(plan, stage);
  uint64_t working_set = 0;
  for (const Instruction& ins : b.program().instructions)
    working_set = std::max(working_set, internal::activation_working_set(ins));
  // The residual streams live at once: one chunk's, or every chunk's when
  // the chunks run inside each layer.
  const uint64_t live_streams =
      uint64_t{plan.micro_batches} * (plan.chunks_share_gathers ? plan.chunks : 1);
  out.memory.activation_peak_bytes = live_streams * em.max_residual_bytes() + working_set;
  out.collective_matmul.on = plan.collective_matmul;
  out.collective_matmul.looped = em.looped_collectives();
  out.collective_matmul.whole = em.whole_collectives();
  out.collective_matmul.whole_reasons.assign(em.whole_reasons().begin(), em.whole_reasons().end());
  out.program = b.take();
  return out;
}

}  // namespace

Program lower(const config::ServingSpec& serving, const MeshAxes& mesh) {
  const ShardPlan plan = internal::make_plan(serving, mesh);
  Program program;
  program.pipeline_axis = serving.sharding.pipeline_axis;
  StageResult previous;
  for (uint32_t s = 0; s < plan.pipeline.chips; ++s) {
    StageResult stage = lower_stage(plan, s, s == 0 ? nullptr : &previous);
    if (stage.memory.total() > program.memory_per_chip.total())
      program.memory_per_chip = stage.memory;
    if (s == 0 || stage.collective_matmul.looped > program.collective_matmul.looped)
      program.collective_matmul = stage.collective_matmul;
    program.stages.push_back(std::move(stage.program));
    previous = std::move(stage);
  }
  program.prefill_chunks = plan.chunks;
  program.weight_gathers = !plan.gathers_weights()     ? 0
                           : plan.chunks_share_gathers ? 1
                                                       : plan.chunks;
  program.chunk_sequences = serving.scenario.batch / plan.data.chips / plan.chunks;
  // The real model's FLOPs: padded heads (sharding.pad_heads, in plan.model)
  // cost time but are not useful work.
  program.model_flops = model_flops(serving);
  program.tokens = step_tokens(serving.scenario);
  program.heads = plan.model.heads;
  program.kv_heads = plan.model.kv_heads;
  program.attention_layout = plan.attention_layout();
  return program;
}

}  // namespace podsim::workload
