// Kernels as tilings (docs/tensorcore.md, "Tilings"): each operation becomes
// a grid of identical steps on one core (pipeline.h), its operands fetched
// into VMEM by DMA in blocks, its work issued on the matrix and vector units.
//
// Matmul, as the Pallas TPU matmul guide tiles it: blocks (bm, bk, bn) on a
// grid (m / bm, n / bn, k / bk), the contraction innermost, an f32
// accumulator block in VMEM, every input block double-buffered. A block is
// fetched again only when its index changes between consecutive steps, so x
// moves m k (n / bn) bytes (once when k fits one block) and y k n (m / bm)
// (once when k and n each fit one block); the output is written once. The
// block shape is the candidate of fewest cycles among those whose buffers
// fit one core's VMEM: bm from 8 and bk, bn from the matrix unit's width,
// doubling up to the dimension (and the dimension itself), the way an
// autotuner picks (the guide: "we often sweep over a large set of candidate
// block sizes, profile the kernel, and pick the best one"). Weight-only
// quantised weights (int8 or int4 with bf16 activations) are widened on the
// vector unit, two operations per weight element a step uses. A fused
// epilogue (engine/fusion.h) adds its vector work to each output block's
// steps, reads its other operands once per output block, and writes its
// output in place of the matmul's.
//
// Every other operation streams: its HBM bytes in S equal steps, its
// matrix-unit passes (attention's two) and vector work spread over them,
// with S the candidate of fewest cycles among a fixed ladder (1 to 16, then
// 9 to 16 times each power of two) from the fewest steps whose double
// buffers fit VMEM: a fixed ladder, so that more VMEM only adds candidates.
// Attention adds one transcendental (exp) per score and a norm one (rsqrt)
// per row on the vector unit, and is tried three ways (AttentionMapping):
// the cache stationary in the matrix units, the queries stationary with the
// cache streamed through them, or all on the vector unit; the fastest is
// kept, unless the op forces one (Attention::mapping, from
// sharding.attention_mapping).
//
// A chip's cores split each grid evenly (the batch, else the longer of m and
// n for a matmul; the bytes and work of a streamed op). O(candidates) per
// op, about 500 for a matmul.
#pragma once

#include <cstdint>
#include <string_view>

#include "chip/chip_rates.h"
#include "chip/ops.h"
#include "chip/systolic.h"
#include "chip/tensorcore/core_rates.h"
#include "chip/tensorcore/pipeline.h"

namespace podsim::chip::tensorcore {

// How an attention kernel uses the units: the KV cache as the matrix
// units' stationary operand (the systolic model's mapping), the queries
// stationary with the cache streamed through them, or the vector unit
// alone. The tiler keeps the fastest.
enum class AttentionMapping : uint8_t {
  kNone,  // not attention
  kCacheStationary,
  kQueriesStationary,
  kVectorUnit,
};

// "cache-stationary", "queries-stationary", "vector-unit"; "" for kNone.
std::string_view to_string(AttentionMapping mapping);

struct Tiling {
  KernelSteps steps;
  AttentionMapping mapping = AttentionMapping::kNone;
  PipelineCycles cycles;            // one core's
  uint64_t vmem_bytes = 0;          // the buffers one core holds
  double dma_bytes = 0;             // one core's traffic, re-reads and granules included
  uint64_t bm = 0, bk = 0, bn = 0;  // a matmul's blocks; 0 for streamed ops
};

class Tiler {
 public:
  // Throws std::invalid_argument as core_rates() does.
  Tiler(const config::ChipSpec& chip, const Efficiency& efficiency);

  Tiling tile(const Op& op) const;
  // A matmul with elementwise work fused into its output (Epilogue): per
  // output block the vector unit applies it, reading its other operands'
  // block and writing its output instead of the matmul's.
  Tiling fused(const Matmul& mm, const Epilogue& epilogue) const;
  // A matmul with the block shape given, on one core's share of it (a
  // Pallas kernel's BlockSpecs), fitting VMEM or not.
  Tiling matmul_with_blocks(const Matmul& mm, uint64_t bm, uint64_t bk, uint64_t bn) const {
    return blocks(core_share(mm), bm, bk, bn);
  }
  const CoreRates& rates() const { return rates_; }

 private:
  Matmul core_share(const Matmul& whole) const;
  // `core_epilogue`: one core's share of a fused epilogue, or null.
  Tiling blocks(const Matmul& core_mm, uint64_t bm, uint64_t bk, uint64_t bn,
                const Epilogue* core_epilogue = nullptr) const;
  Tiling matmul(const Matmul& mm, const Epilogue* epilogue = nullptr) const;
  Tiling streamed(const Op& op) const;
  // The fastest ladder of steps for one core's bytes and cycles.
  Tiling stream(double read, double written, double mxu_steady, double fill, double vector) const;
  // One core's matrix-unit cycles for a pass: steady streaming, and the
  // fill, drain and first weight load paid once.
  void pass_cycles(const MxuPass& pass, double& steady, double& fill) const;

  CoreRates rates_;
  ChipRates core_chip_;
  SystolicModel mxu_;  // one core's arrays
};

}  // namespace podsim::chip::tensorcore
