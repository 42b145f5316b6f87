// Tensor-parallel matmuls with the all-gather that feeds them or the
// reduce-scatter they feed (sharding.collective_matmul; README.md,
// "Collective matmul"). Off, the collective runs whole. On, over any group
// of N chips, it runs as XLA's looped collective einsum (Wang et al.,
// "Overlap Communication with Dependent Computation via Decomposition in
// Large Deep Learning Models", ASPLOS 2023), in both directions of the
// logical ring of the group's chips in mesh order: each shift is a cyclic
// collective-permute (CollectiveSpec::cyclic), as XLA's windowed einsum
// loop is. Over one torus ring every transfer is one hop. Over a line (no
// wraparound) the last chip's transfer to the first crosses the whole line,
// sharing its links with the neighbours' transfers, so a step takes about
// twice a ring's; over several dimensions the group is in the mesh's snake
// order, one hop a shift, but one loop uses one link each way per chip where
// the whole collective uses every dimension's. The network model times
// both; AUTO keeps looping only where the step is faster for it.
//
//   all-gather -> matmul: each chip multiplies the chunk it holds while
//   sending it to both neighbours; each chunk that arrives is multiplied and
//   passed on: floor(N / 2) shifts one way, floor((N - 1) / 2) the other,
//   each of 1 / N of the gathered array, N chunk matmuls in all.
//
//   matmul -> reduce-scatter: each chip computes the partial result a chip
//   farthest along the ring needs, sends it on, and at every later step adds
//   its own part to the partial sum that arrives for the next chip before
//   sending that on; the last step adds its own chunk to the two sums that
//   reach it.
//
// The bytes on the wire are the ring collective's, (N - 1) / N of V; the
// matmul FLOPs are the whole matmul's. What changes is that only the first
// (or last) chunk's communication is exposed, at the price of N smaller
// matmuls: a chunk split along the rows re-reads the weights N times, and a
// chunk of a contraction (or of a reduce-scatter) adds each partial to an
// accumulator, one extra read of the chunk (the accumulation fused into the
// matmul's output, as XLA fuses it).
#include "workload/layer_emitter.h"

namespace podsim::workload::internal {

using config::CollectiveKind;

namespace {

uint64_t chunk_extent(const MatmulShape& mm, ChunkDim dim) {
  switch (dim) {
    case ChunkDim::kRows:
      return mm.m;
    case ChunkDim::kContraction:
      return mm.k;
    case ChunkDim::kColumns:
      return mm.n;
  }
  return 0;
}

MatmulShape chunk_of(MatmulShape mm, ChunkDim dim, uint64_t n) {
  switch (dim) {
    case ChunkDim::kRows:
      mm.m /= n;
      break;
    case ChunkDim::kContraction:
      mm.k /= n;
      break;
    case ChunkDim::kColumns:
      mm.n /= n;
      break;
  }
  return mm;
}

// Per-chip ring bytes of a collective of `v` bytes over `n` chips: what it
// costs, to choose which side of a matmul to loop.
double ring_bytes(const LoopableCollective& c, uint64_t v) {
  const double n = static_cast<double>(c.group->chips);
  return static_cast<double>(v) * (n - 1) / n;
}

// The parts chunked: a fused matmul's segments, or the whole matmul along
// the collective's dimension.
std::vector<LoopSegment> segments_of(const LoopableCollective& c, const MatmulShape& mm) {
  if (!c.segments.empty())
    return c.segments;
  return {LoopSegment{mm, c.dim, c.elements}};
}

}  // namespace

bool LayerEmitter::loops(const LoopableCollective& c, const MatmulShape& mm,
                         std::string* why) const {
  const AxisGroup& g = *c.group;
  if (g.chips <= 1)
    return false;  // no collective at all
  if (!plan_.collective_matmul)
    return false;
  bool equal = c.elements % g.chips == 0;
  for (const LoopSegment& seg : segments_of(c, mm))
    equal = equal && chunk_extent(seg.mm, seg.dim) % g.chips == 0 && seg.elements % g.chips == 0;
  if (!equal) {
    if (why != nullptr)
      *why = "over " + g.describe("mesh") + ": the matmul does not split into equal chunks";
    return false;
  }
  return true;
}

Ref LayerEmitter::accumulate(const MatmulShape& mm, Ref partial, Ref sum) {
  chip::Elementwise add;
  add.elements = mm.m * mm.n;
  add.flops_per_element = 1;
  add.bytes_in = plan_.act_bytes(mm.m * mm.n);  // the accumulator; the partial is in flight
  add.bytes_out = 0;                            // written by the matmul's fused output
  return b_.compute(std::string(mm.slot) + ".accumulate", mm.op_class, add, {partial, sum});
}

Ref LayerEmitter::shift(const LoopableCollective& c, int32_t direction, uint64_t bytes, Ref input,
                        Ref input2) {
  config::CollectiveSpec spec;
  spec.kind = CollectiveKind::kPermute;
  spec.bytes = bytes;
  spec.axes = c.group->names;
  spec.dtype = plan_.model.activation_dtype;
  spec.shift = direction;
  spec.cyclic = true;
  return b_.communicate(c.name + (direction > 0 ? ".shift_up" : ".shift_down"),
                        OpClass::kCollective, spec, {input, input2});
}

Ref LayerEmitter::chunk_matmul(const MatmulShape& mm, Ref input, Ref input2) {
  return matmul(mm.slot, mm.op_class, 1, mm.m, mm.k, mm.n, input, mm.full_weight_elements, input2);
}

std::vector<Ref> LayerEmitter::chunk_parts(const std::vector<LoopSegment>& segments, uint64_t n,
                                           Ref input, Ref input2) {
  std::vector<Ref> parts;
  for (const LoopSegment& seg : segments)
    parts.push_back(chunk_matmul(chunk_of(seg.mm, seg.dim, n), input, input2));
  return parts;
}

Ref LayerEmitter::fold(const std::vector<LoopSegment>& segments, uint64_t n,
                       const std::vector<Ref>& parts, Ref into, bool sum_parts) {
  Ref out = into;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (out == kNoRef || (into == kNoRef && !sum_parts))
      out = parts[i];
    else
      out = accumulate(chunk_of(segments[i].mm, segments[i].dim, n), parts[i], out);
  }
  return out;
}

Ref LayerEmitter::looped_gather(const LoopableCollective& ag, Ref input, const MatmulShape& mm,
                                Ref input2) {
  const uint64_t n = ag.group->chips;
  const std::vector<LoopSegment> segments = segments_of(ag, mm);
  const bool fused = segments.size() > 1;  // the parts write one output: they sum
  const uint64_t bytes = plan_.act_bytes(ag.elements / n);
  const bool sums = fused || segments[0].dim == ChunkDim::kContraction;
  const uint64_t up = n / 2;
  const uint64_t down = (n - 1) / 2;
  Ref out = fold(segments, n, chunk_parts(segments, n, input, input2), kNoRef, fused);
  // A fused matmul's gathered array holds both inputs' chunks.
  Ref from_up = input;
  Ref from_down = input;
  const Ref also = fused ? input2 : kNoRef;
  for (uint64_t step = 1; step <= up; ++step) {
    from_up = shift(ag, +1, bytes, from_up, step == 1 ? also : kNoRef);
    const bool has_down = step <= down;
    if (has_down)
      from_down = shift(ag, -1, bytes, from_down, step == 1 ? also : kNoRef);
    out = fold(segments, n, chunk_parts(segments, n, from_up, input2), sums ? out : kNoRef, fused);
    if (has_down) {
      out = fold(segments, n, chunk_parts(segments, n, from_down, input2), sums ? out : kNoRef,
                 fused);
    }
  }
  ++looped_;
  return out;
}

Ref LayerEmitter::looped_scatter(const LoopableCollective& rs, Ref input, const MatmulShape& mm,
                                 Ref input2) {
  const uint64_t n = rs.group->chips;
  const std::vector<LoopSegment> segments = segments_of(rs, mm);
  const uint64_t bytes = plan_.act_bytes(rs.elements / n);
  const uint64_t up = n / 2;  // partial sums travelling up the ring: destinations 1..up away
  const uint64_t down = (n - 1) / 2;
  Ref sum_up = kNoRef;  // the partial sum in flight, as received
  Ref sum_down = kNoRef;
  for (uint64_t step = 0; step < up; ++step) {
    // This step's parts: for the chips up - step (and down - step) places on.
    const bool has_down = step + down >= up;  // the shorter lane starts later
    const std::vector<Ref> parts_up = chunk_parts(segments, n, input, input2);
    const std::vector<Ref> parts_down =
        has_down ? chunk_parts(segments, n, input, input2) : std::vector<Ref>{};
    sum_up = shift(rs, +1, bytes, fold(segments, n, parts_up, sum_up, false));
    if (has_down)
      sum_down = shift(rs, -1, bytes, fold(segments, n, parts_down, sum_down, false));
  }
  // The chip's own chunk, plus what the two lanes bring.
  Ref out = fold(segments, n, chunk_parts(segments, n, input, input2), sum_up, false);
  if (sum_down != kNoRef) {
    for (const LoopSegment& seg : segments)
      out = accumulate(chunk_of(seg.mm, seg.dim, n), out, sum_down);
  }
  ++looped_;
  return out;
}

Ref LayerEmitter::tensor_matmul(const LoopableCollective* gather, Ref input, const MatmulShape& mm,
                                const LoopableCollective* scatter, Ref input2) {
  std::string why;
  const bool loop_gather = gather != nullptr && loops(*gather, mm, &why);
  if (!why.empty())
    whole_.insert(why);
  why.clear();
  const bool loop_scatter = scatter != nullptr && loops(*scatter, mm, &why);
  if (!why.empty())
    whole_.insert(why);
  // One matmul loops one of its collectives: the one that moves more.
  const bool gather_wins =
      loop_gather &&
      (!loop_scatter || ring_bytes(*gather, plan_.act_bytes(gather->elements)) >
                            ring_bytes(*scatter, plan_.act_bytes(scatter->elements)));
  const bool scatter_wins = loop_scatter && !gather_wins;
  if (loop_gather && loop_scatter)
    whole_.insert("the smaller of a matmul's all-gather and reduce-scatter (one loops per matmul)");
  if (plan_.collective_matmul) {
    whole_count_ += gather != nullptr && gather->group->chips > 1 && !gather_wins ? 1 : 0;
    whole_count_ += scatter != nullptr && scatter->group->chips > 1 && !scatter_wins ? 1 : 0;
  }

  Ref x = input;
  if (gather_wins) {
    x = looped_gather(*gather, input, mm, input2);
  } else {
    if (gather != nullptr) {
      // A fused matmul's gather carries both of its inputs.
      x = act_collective(gather->name, CollectiveKind::kAllGather, gather->elements, *gather->group,
                         input, gather->segments.size() > 1 ? input2 : kNoRef);
    }
    if (scatter_wins)
      return looped_scatter(*scatter, x, mm, input2);
    x = chunk_matmul(mm, x, input2);
  }
  if (scatter != nullptr)
    x = act_collective(scatter->name, CollectiveKind::kReduceScatter, scatter->elements,
                       *scatter->group, x);
  return x;
}

}  // namespace podsim::workload::internal
