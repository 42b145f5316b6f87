#include "report/step_report.h"

#include "report/energy_report.h"
#include "report/format.h"  // format_fixed
#include "report/result_inputs.h"
#include "report/table.h"

namespace podsim::report {
namespace {

double gib(uint64_t bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0);
}

std::string pct(double part, double whole) {
  return whole > 0 ? format_fixed(100.0 * part / whole, 1) + "%" : "-";
}

void render_text(const StepInputs& in, const engine::StepResult& r, const engine::ServingSummary& s,
                 std::ostream& out) {
  const auto& sc = in.serving.scenario;
  out << in.serving.model.name << " " << phase_name(sc.phase) << ", batch " << sc.batch
      << (sc.phase == config::Phase::kPrefill ? ", prompt " + std::to_string(sc.prompt_len) : "")
      << ", context " << sc.context_len << "\non " << in.run.topology << " (" << in.run.chips
      << " chips, mesh " << in.mesh << "), " << in.run.network << " network, " << in.compute_model
      << " compute\n\n";
  const double step = s.step_time_us;
  const config::ModelSpec& m = in.serving.model;
  if (s.heads != m.heads || s.kv_heads != m.kv_heads) {
    out << "padded heads (sharding.pad_heads): " << s.heads << " query / " << s.kv_heads
        << " KV computed for the model's " << m.heads << " / " << m.kv_heads
        << "; MFU counts the model's\n\n";
  }
  if (s.attention_layout == "by-heads over x and y") {
    out << "attention by heads over every tensor axis (2D): each micro-batch has fewer sequences "
           "than the first tensor axis has chips\n\n";
  }
  if (!s.attention_mapping.empty()) {
    out << "attention kernel (tensorcore): " << s.attention_mapping
        << (in.serving.sharding.attention_mapping != config::AttentionMapping::kAuto
                ? ", as sharding.attention_mapping forces\n\n"
                : ", the fastest of the cache or the queries stationary in the matrix units and "
                  "the vector unit\n\n");
  }
  if (r.fused_epilogues > 0) {
    out << "fused epilogues (tensorcore): " << r.fused_epilogues
        << " elementwise ops per chip run inside the matmul producing their input\n\n";
  }
  if (s.collective_matmul_use.on) {
    const workload::CollectiveMatmulUse& cm = s.collective_matmul_use;
    out << "collective matmul (" << s.collective_matmul << "): " << cm.looped
        << " tensor collectives per chip looped with their matmuls, " << cm.whole << " left whole";
    for (const std::string& reason : cm.whole_reasons)
      out << "\n  left whole: " << reason;
    out << "\n\n";
  } else if (s.collective_matmul == "auto: off") {
    out << "collective matmul (auto): off, the plain collectives were faster\n\n";
  }
  render_key_values(
      out,
      {{"step time", format_fixed(step, 2) + " us"},
       {"  compute-bound", format_fixed(s.compute_us, 2) + " us  " + pct(s.compute_us, step)},
       {"  memory-bound", format_fixed(s.memory_us, 2) + " us  " + pct(s.memory_us, step)},
       {"  exposed collectives",
        format_fixed(s.collective_exposed_us, 2) + " us  " + pct(s.collective_exposed_us, step)},
       {"  idle", format_fixed(s.idle_us, 2) + " us  " + pct(s.idle_us, step)},
       {"collectives under compute", format_fixed(s.collective_overlapped_us, 2) + " us"},
       {"tokens/s", format_fixed(s.tokens_per_s, 1) + " (" +
                        format_fixed(s.tokens_per_s_per_chip, 2) + " per chip)"},
       {sc.phase == config::Phase::kPrefill ? "time to first token" : "time per output token",
        format_fixed(step / 1000.0, 3) + " ms"},
       {"MFU", format_fixed(100.0 * s.mfu, 2) + "%"},
       {"HBM bandwidth used", format_fixed(100.0 * s.hbm_bandwidth_utilisation, 1) + "%"},
       {"HBM per chip",
        format_fixed(gib(s.hbm_used_bytes), 2) + " of " +
            format_fixed(gib(s.hbm_capacity_bytes), 2) + " GiB (weights " +
            format_fixed(gib(s.memory.weight_bytes), 2) + ", KV " +
            format_fixed(gib(s.memory.kv_cache_bytes), 2) + ", activations " +
            format_fixed(gib(s.memory.activation_peak_bytes), 2) + ")" +
            (s.fits ? "" : "  DOES NOT FIT") +
            (s.prefill_chunks > 1
                 ? "; the batch in " + std::to_string(s.prefill_chunks) + " sequential chunks of " +
                       std::to_string(s.chunk_sequences) + " sequences per replica" +
                       (s.weight_gathers > 1 ? ", each gathering every layer's weights (one "
                                               "gather per layer did not fit)"
                        : s.weight_gathers == 1
                            ? ", inside each layer (one weight gather per layer)"
                            : "")
                 : "")},
       {"chips simulated",
        std::to_string(r.simulated_chips) + " standing for " + std::to_string(r.represented_chips) +
            (r.symmetric ? "; " + std::to_string(r.played_chips) +
                               " played, one per class of a symmetry (" + r.simulation + ")"
                         : "")},
       {"chip end spread", format_fixed(r.min_chip_end.to_us(), 2) + " .. " +
                               format_fixed(r.step_time.to_us(), 2) + " us"}});
  out << '\n';
  Table t({"op class", "compute us", "memory us", "exposed coll us", "overlapped coll us"});
  for (const auto& g : r.by_op_class) {
    t.add_row({g.key, format_fixed(g.compute.to_us(), 2), format_fixed(g.memory.to_us(), 2),
               format_fixed(g.collective_exposed.to_us(), 2),
               format_fixed(g.collective_overlapped.to_us(), 2)});
  }
  t.render_text(out);
  // Compute and memory time again, by where it went on the chip.
  out << '\n';
  Table u({"op class", "MXU us", "vector us", "issue us", "DMA wait us", "overhead us"});
  const auto unit_row = [&u](const std::string& key, const chip::UnitTimes& g) {
    u.add_row({key, format_fixed(g.mxu.to_us(), 2), format_fixed(g.vector.to_us(), 2),
               format_fixed(g.issue.to_us(), 2), format_fixed(g.dma_wait.to_us(), 2),
               format_fixed(g.overhead.to_us(), 2)});
  };
  for (const auto& g : r.by_op_class) {
    unit_row(g.key, g.units);
  }
  unit_row("total", r.critical.units);
  u.render_text(out);
  render_energy(s, r.step_time, out);
}

}  // namespace

void render_step(const StepInputs& in, const engine::StepResult& step,
                 const engine::ServingSummary& s, std::ostream& out) {
  render_text(in, step, s, out);
}

void render_memory_only(const StepInputs& in, const engine::ServingSummary& s, std::ostream& out) {
  out << in.serving.model.name << " does not fit on " << in.run.topology << ": "
      << format_fixed(gib(s.hbm_used_bytes), 2) << " GiB per chip needed (weights "
      << format_fixed(gib(s.memory.weight_bytes), 2) << ", KV cache "
      << format_fixed(gib(s.memory.kv_cache_bytes), 2) << ", activations "
      << format_fixed(gib(s.memory.activation_peak_bytes), 2) << "), "
      << format_fixed(gib(s.hbm_capacity_bytes), 2)
      << " GiB available. Shard further, or pass --allow-oom to simulate anyway.\n";
}

}  // namespace podsim::report
