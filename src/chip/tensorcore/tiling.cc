#include "chip/tensorcore/tiling.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "chip/mxu_passes.h"

namespace podsim::chip::tensorcore {
namespace {

uint64_t ceil_div(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}

// min(dim, base x 2^i) for every i up to the dimension, and the dimension.
void candidates(uint64_t dim, uint64_t base, std::vector<uint64_t>& out) {
  out.clear();
  for (uint64_t v = base; v < dim && out.size() < 24; v *= 2)
    out.push_back(v);
  out.push_back(dim);
}

bool weight_only_quantised(const Matmul& mm) {
  const bool narrow = mm.weight == DType::kInt8 || mm.weight == DType::kInt4;
  return narrow && matmul_rate(mm.act, mm.weight) == Rate::kBf16;
}

// Better: fewer cycles, then fewer steps.
bool better(const PipelineCycles& a, uint64_t a_steps, const PipelineCycles& b, uint64_t b_steps) {
  return a.total < b.total || (a.total == b.total && a_steps < b_steps);
}

}  // namespace

std::string_view to_string(AttentionMapping mapping) {
  switch (mapping) {
    case AttentionMapping::kNone:
      return "";
    case AttentionMapping::kCacheStationary:
      return config::to_string(config::AttentionMapping::kCacheStationary);
    case AttentionMapping::kQueriesStationary:
      return config::to_string(config::AttentionMapping::kQueriesStationary);
    case AttentionMapping::kVectorUnit:
      return config::to_string(config::AttentionMapping::kVectorUnit);
  }
  return "";
}

Tiler::Tiler(const config::ChipSpec& chip, const Efficiency& efficiency)
    : rates_(core_rates(chip, efficiency)),
      core_chip_(one_core(chip), efficiency),
      mxu_(one_core(chip), efficiency) {}

void Tiler::pass_cycles(const MxuPass& pass, double& steady, double& fill) const {
  MxuPass p = pass;
  p.hbm_bytes = 0;  // the DMA pipeline feeds the units, not the pass model
  const SystolicPassCycles c = mxu_.pass_cycles(p);
  const double load = std::max(1.0, std::ceil(core_chip_.tile_load_cycles(p.rate)));
  const double fill_drain = static_cast<double>(rates_.mxu_rows + rates_.mxu_columns - 2);
  fill = load + fill_drain;
  // A measured matmul's loss the model has no mechanism for slows the
  // arrays' streaming (calibration.mxu_efficiency; 1 uncalibrated).
  steady =
      std::max(0.0, static_cast<double>(c.compute_cycles) - fill) / core_chip_.efficiency().mxu;
}

Tiling Tiler::tile(const Op& op) const {
  if (const auto* mm = std::get_if<Matmul>(&op))
    return matmul(*mm);
  return streamed(op);
}

Matmul Tiler::core_share(const Matmul& whole) const {
  Matmul mm = whole;
  const uint32_t cores = rates_.cores;
  if (cores > 1) {
    if (mm.batch % cores == 0)
      mm.batch /= cores;
    else if (mm.m >= mm.n)
      mm.m = ceil_div(mm.m, cores);
    else
      mm.n = ceil_div(mm.n, cores);
  }
  return mm;
}

Tiling Tiler::blocks(const Matmul& mm, uint64_t bm, uint64_t bk, uint64_t bn,
                     const Epilogue* ep) const {
  const Rate rate = matmul_rate(mm.act, mm.weight);
  const uint64_t x_block = bytes_of(bm * bk, mm.act);
  const uint64_t y_block = bytes_of(bk * bn, mm.weight);
  const uint64_t gm = ceil_div(mm.m, bm);
  const uint64_t gk = ceil_div(mm.k, bk);
  const uint64_t gn = ceil_div(mm.n, bn);
  const uint64_t grid = gm * gn * gk;
  const auto out_blocks = static_cast<double>(mm.batch * gm * gn);
  // The block written per output block, and a fused epilogue's other
  // operands read per output block, both spread evenly over the blocks.
  double o_block = static_cast<double>(bytes_of(bm * bn, mm.act));
  double e_block = 0;
  if (ep != nullptr) {
    o_block = static_cast<double>(ep->write_bytes) / out_blocks;
    e_block = static_cast<double>(ep->read_bytes) / out_blocks;
  }
  const double x_fetches = static_cast<double>(gk == 1 ? gm : grid);
  const double y_fetches =
      mm.weights_resident ? 0 : static_cast<double>(gk == 1 && gn == 1 ? 1 : grid);
  const double in = x_fetches * granules(static_cast<double>(x_block), rates_) +
                    y_fetches * granules(static_cast<double>(y_block), rates_) +
                    static_cast<double>(gm * gn) * granules(e_block, rates_);
  const double out = static_cast<double>(gm * gn) * granules(o_block, rates_);
  Tiling t;
  t.bm = bm;
  t.bk = bk;
  t.bn = bn;
  t.vmem_bytes = 2 * (x_block + (mm.weights_resident ? 0 : y_block)) +
                 bytes_of(bm * bn, DType::kFp32) +
                 2 * static_cast<uint64_t>(std::ceil(o_block + e_block));
  t.steps.steps = mm.batch * grid;
  const auto steps = static_cast<double>(t.steps.steps);
  t.steps.in_bytes = in * static_cast<double>(mm.batch) / steps;
  t.steps.out_bytes = out * static_cast<double>(mm.batch) / steps;
  pass_cycles(MxuPass{1, bm, bk, bn, 1.0, 0, rate}, t.steps.mxu_cycles, t.steps.fill_cycles);
  // The accumulator's cast to the output once per output block, and
  // widening quantised weights each step.
  const double vector_ops = static_cast<double>(bm * bn) / static_cast<double>(gk) +
                            (weight_only_quantised(mm) ? 2.0 * static_cast<double>(bk * bn) : 0.0) +
                            (ep != nullptr ? ep->vector_flops / steps : 0.0);
  t.steps.vector_cycles = vector_ops / rates_.vector_ops_per_cycle;
  t.cycles = play(t.steps, rates_);
  t.dma_bytes = (in + out) * static_cast<double>(mm.batch);
  return t;
}

Tiling Tiler::fused(const Matmul& mm, const Epilogue& epilogue) const {
  return matmul(mm, &epilogue);
}

Tiling Tiler::matmul(const Matmul& whole, const Epilogue* whole_epilogue) const {
  const Matmul mm = core_share(whole);
  // A core's share of the epilogue: the cores split the output evenly.
  Epilogue share;
  const Epilogue* ep = nullptr;
  if (whole_epilogue != nullptr) {
    const uint32_t cores = rates_.cores;
    share.vector_flops = whole_epilogue->vector_flops / cores;
    share.read_bytes = ceil_div(whole_epilogue->read_bytes, cores);
    share.write_bytes = ceil_div(whole_epilogue->write_bytes, cores);
    ep = &share;
  }
  std::vector<uint64_t> bms;
  std::vector<uint64_t> bks;
  std::vector<uint64_t> bns;
  candidates(mm.m, 8, bms);
  candidates(mm.k, rates_.mxu_rows, bks);
  candidates(mm.n, rates_.mxu_columns, bns);
  Tiling best;
  bool found = false;
  Tiling smallest;  // when nothing fits: the least VMEM
  for (const uint64_t bm : bms) {
    for (const uint64_t bk : bks) {
      for (const uint64_t bn : bns) {
        const Tiling t = blocks(mm, bm, bk, bn, ep);
        if (t.vmem_bytes <= rates_.vmem_bytes) {
          if (!found || better(t.cycles, t.steps.steps, best.cycles, best.steps.steps))
            best = t;
          found = true;
        } else if (smallest.vmem_bytes == 0 || t.vmem_bytes < smallest.vmem_bytes) {
          smallest = t;
        }
      }
    }
  }
  return found ? best : smallest;
}

Tiling Tiler::streamed(const Op& op) const {
  const auto cores = static_cast<double>(rates_.cores);
  const OpWork w = work(op);
  const double read = static_cast<double>(w.hbm_read_bytes) / cores;
  const double written = static_cast<double>(w.hbm_write_bytes) / cores;
  // One core's matrix-unit streaming and fill for a set of passes.
  const auto on_arrays = [&](const MxuPasses& passes, double& steady, double& fill) {
    steady = 0;
    fill = 0;
    for (const MxuPass& pass : passes) {
      double s = 0;
      double f = 0;
      pass_cycles(pass, s, f);
      steady += s / cores;
      fill += f;
    }
  };
  double transcendentals = 0;
  if (const auto* a = std::get_if<Attention>(&op)) {
    transcendentals = static_cast<double>(a->batch) * static_cast<double>(a->heads) *
                      static_cast<double>(attention_pairs(*a));
  } else if (const auto* n = std::get_if<Norm>(&op)) {
    transcendentals = static_cast<double>(n->rows);
  }
  const double vector = w.vector_flops / cores / rates_.vector_ops_per_cycle +
                        transcendentals / cores / rates_.transcendentals_per_cycle;
  double steady = 0;
  double fill = 0;
  on_arrays(mxu_passes(op), steady, fill);
  Tiling cache = stream(read, written, steady, fill, vector);
  const auto* a = std::get_if<Attention>(&op);
  if (a == nullptr)
    return cache;
  cache.mapping = AttentionMapping::kCacheStationary;
  // sharding.attention_mapping may force one mapping; otherwise the fastest
  // is kept (the earlier of equals, in this order).
  using Forced = config::AttentionMapping;
  const auto allowed = [a](Forced m) { return a->mapping == Forced::kAuto || a->mapping == m; };
  std::optional<Tiling> best;
  const auto consider = [&best](const Tiling& t) {
    if (!best || t.cycles.total < best->cycles.total)
      best = t;
  };
  if (allowed(Forced::kCacheStationary))
    consider(cache);
  if (allowed(Forced::kQueriesStationary)) {
    // The queries as the stationary operand, the cache streamed through
    // them: scores^T = K Q^T (kv_len rows of K past Q^T), context^T = V^T P^T.
    MxuPasses swapped = mxu_passes(op);
    const uint64_t queries = swapped.pass[0].m;
    swapped.pass[0].m = a->kv_len;
    swapped.pass[0].k = a->head_dim;
    swapped.pass[0].n = queries;
    swapped.pass[1].m = a->value_dim();
    swapped.pass[1].k = a->kv_len;
    swapped.pass[1].n = queries;
    on_arrays(swapped, steady, fill);
    Tiling t = stream(read, written, steady, fill, vector);
    t.mapping = AttentionMapping::kQueriesStationary;
    consider(t);
  }
  if (allowed(Forced::kVectorUnit)) {
    // No matrix units: every multiply-add on the vector unit.
    Tiling t =
        stream(read, written, 0, 0, vector + w.mxu_flops / cores / rates_.vector_ops_per_cycle);
    t.mapping = AttentionMapping::kVectorUnit;
    consider(t);
  }
  return *best;
}

Tiling Tiler::stream(double read, double written, double mxu_steady, double fill,
                     double vector) const {
  const double bytes = read + written;
  const auto vmem = static_cast<double>(rates_.vmem_bytes);
  // The fewest steps whose double buffers fit; the candidates are a fixed
  // ladder (every count to 16, then 9 to 16 times each power of two), so
  // more VMEM only adds candidates and is never slower.
  const double fewest = std::max(1.0, std::ceil(2.0 * bytes / vmem));
  Tiling best;
  bool found = false;
  for (uint64_t scale = 1, k = 1; scale < (uint64_t{1} << 40); ++k) {
    if (k > 16) {
      k = 9;
      scale *= 2;
    }
    const uint64_t steps = k * scale;
    const auto s = static_cast<double>(steps);
    if (s < fewest)
      continue;
    Tiling t;
    t.steps.steps = steps;
    t.steps.in_bytes = granules(read / s, rates_);
    t.steps.out_bytes = granules(written / s, rates_);
    t.steps.mxu_cycles = mxu_steady / s;
    t.steps.vector_cycles = vector / s;
    t.steps.fill_cycles = fill;
    t.vmem_bytes = static_cast<uint64_t>(2 * (t.steps.in_bytes + t.steps.out_bytes));
    const bool tiny =
        t.steps.in_bytes + t.steps.out_bytes <= 2.0 * static_cast<double>(rates_.dma_granule_bytes);
    // Whole granules overflow: more steps, unless a step is already a couple
    // of granules (a VMEM under a few KiB, which the loader's users refuse:
    // study/evaluate.cc), where the smallest step is played as it is.
    if (t.vmem_bytes > rates_.vmem_bytes && steps > 1 && !(tiny && !found))
      continue;
    t.cycles = play(t.steps, rates_);
    t.dma_bytes = s * (t.steps.in_bytes + t.steps.out_bytes);
    if (!found || better(t.cycles, t.steps.steps, best.cycles, best.steps.steps))
      best = t;
    found = true;
    // Smaller steps only add issue and latency once a step is a granule.
    if (tiny)
      break;
  }
  return best;
}

}  // namespace podsim::chip::tensorcore
