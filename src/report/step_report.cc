#include "report/step_report.h"

#include "report/json_writer.h"
#include "report/table.h"

namespace podsim::report {
namespace {

const char* phase_name(config::Phase p) {
  return p == config::Phase::kPrefill ? "prefill" : "decode";
}

const char* dtype_name(config::DType t) {
  switch (t) {
    case config::DType::kBf16:
      return "bf16";
    case config::DType::kFp32:
      return "fp32";
    case config::DType::kFp8:
      return "fp8";
    case config::DType::kInt8:
      return "int8";
    case config::DType::kInt4:
      return "int4";
  }
  return "bf16";
}

double gib(uint64_t bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0);
}

void inputs_json(JsonWriter& j, const StepInputs& in) {
  const auto& m = in.serving.model;
  const auto& sc = in.serving.scenario;
  j.field("topology", in.run.topology).field("topology_file", in.run.topology_file);
  j.field("workload", in.run.workload).field("workload_file", in.run.workload_file);
  j.field("model", m.name).field("network", in.run.network).field("compute", in.compute_model);
  j.field("chips", in.run.chips).field("mesh", in.mesh);
  j.field("phase", phase_name(sc.phase)).field("batch", sc.batch);
  j.field("prompt_len", sc.prompt_len).field("context_len", sc.context_len);
  j.field("micro_batches", sc.micro_batches);
  j.field("weight_dtype", dtype_name(m.weight_dtype));
  j.field("activation_dtype", dtype_name(m.activation_dtype));
  j.field("kv_dtype", dtype_name(m.kv_dtype));
}

void memory_json(JsonWriter& j, const engine::ServingSummary& s, bool allow_oom) {
  j.field("hbm_used_bytes", s.hbm_used_bytes).field("hbm_capacity_bytes", s.hbm_capacity_bytes);
  j.field("weight_bytes", s.memory.weight_bytes).field("kv_cache_bytes", s.memory.kv_cache_bytes);
  j.field("activation_peak_bytes", s.memory.activation_peak_bytes);
  j.field("fits", s.fits).field("allow_oom", allow_oom);
}

void groups_json(JsonWriter& j, const char* key, const char* name_key,
                 const std::vector<engine::GroupTime>& groups) {
  j.key(key).begin_array();
  for (const auto& g : groups) {
    j.begin_object()
        .field(name_key, g.key)
        .field("compute_us", g.compute.to_us())
        .field("memory_us", g.memory.to_us())
        .field("collective_exposed_us", g.collective_exposed.to_us())
        .field("collective_overlapped_us", g.collective_overlapped.to_us())
        .end_object();
  }
  j.end_array();
}

void render_json(const StepInputs& in, const engine::StepResult& r, const engine::ServingSummary& s,
                 std::ostream& out) {
  JsonWriter j(out);
  j.begin_object();
  inputs_json(j, in);
  j.field("step_time_us", s.step_time_us);
  j.field("compute_us", s.compute_us).field("memory_us", s.memory_us);
  j.field("collective_exposed_us", s.collective_exposed_us).field("idle_us", s.idle_us);
  j.field("collective_overlapped_us", s.collective_overlapped_us);
  j.field("tokens", s.tokens).field("tokens_per_s", s.tokens_per_s);
  j.field("tokens_per_s_per_chip", s.tokens_per_s_per_chip);
  j.field("ttft_us", s.ttft_us).field("tpot_us", s.tpot_us);
  j.field("mfu", s.mfu).field("hbm_bandwidth_utilisation", s.hbm_bandwidth_utilisation);
  memory_json(j, s, in.allow_oom);
  j.field("critical_chip", r.critical_chip).field("critical_stage", r.critical_stage);
  j.key("spread").begin_object();
  j.field("min_chip_end_us", r.min_chip_end.to_us());
  j.field("mean_chip_end_us", r.mean_chip_end.to_us());
  j.field("max_chip_end_us", r.step_time.to_us());
  j.field("simulated_chips", r.simulated_chips).field("represented_chips", r.represented_chips);
  j.end_object();
  // Per simulated chip: where its own time went, to its own end.
  j.key("chips_breakdown").begin_array();
  for (size_t i = 0; i < r.chips.size() && i < r.chip_breakdowns.size(); ++i) {
    const engine::ChipBreakdown& b = r.chip_breakdowns[i];
    j.begin_object()
        .field("chip", r.chips[i])
        .field("stage", r.chip_stage[i])
        .field("end_us", b.end.to_us())
        .field("compute_us", b.compute.to_us())
        .field("memory_us", b.memory.to_us())
        .field("collective_exposed_us", b.collective_exposed.to_us())
        .field("idle_us", b.idle.to_us())
        .field("collective_overlapped_us", b.collective_overlapped.to_us())
        .end_object();
  }
  j.end_array();
  groups_json(j, "by_layer", "layer", r.by_layer);
  groups_json(j, "by_op_class", "op_class", r.by_op_class);
  j.field("events", r.events);
  if (in.run.link_stats) {
    write_link_stats(j, *in.run.link_stats);
  }
  j.end_object();
  j.finish();
}

const std::vector<std::string>& csv_header() {
  static const std::vector<std::string> kHeader = {"schema_version",
                                                   "topology",
                                                   "workload",
                                                   "model",
                                                   "network",
                                                   "compute",
                                                   "chips",
                                                   "mesh",
                                                   "phase",
                                                   "batch",
                                                   "prompt_len",
                                                   "context_len",
                                                   "micro_batches",
                                                   "weight_dtype",
                                                   "activation_dtype",
                                                   "kv_dtype",
                                                   "step_time_us",
                                                   "compute_us",
                                                   "memory_us",
                                                   "collective_exposed_us",
                                                   "idle_us",
                                                   "collective_overlapped_us",
                                                   "tokens_per_s",
                                                   "tokens_per_s_per_chip",
                                                   "ttft_us",
                                                   "tpot_us",
                                                   "mfu",
                                                   "hbm_bandwidth_utilisation",
                                                   "hbm_used_bytes",
                                                   "hbm_capacity_bytes",
                                                   "fits"};
  return kHeader;
}

void render_csv(const StepInputs& in, const engine::ServingSummary& s, std::ostream& out) {
  const auto& m = in.serving.model;
  const auto& sc = in.serving.scenario;
  Table t(csv_header());
  t.add_row({"1",
             in.run.topology,
             in.run.workload,
             m.name,
             in.run.network,
             in.compute_model,
             std::to_string(in.run.chips),
             in.mesh,
             phase_name(sc.phase),
             std::to_string(sc.batch),
             std::to_string(sc.prompt_len),
             std::to_string(sc.context_len),
             std::to_string(sc.micro_batches),
             dtype_name(m.weight_dtype),
             dtype_name(m.activation_dtype),
             dtype_name(m.kv_dtype),
             format_double(s.step_time_us),
             format_double(s.compute_us),
             format_double(s.memory_us),
             format_double(s.collective_exposed_us),
             format_double(s.idle_us),
             format_double(s.collective_overlapped_us),
             format_double(s.tokens_per_s),
             format_double(s.tokens_per_s_per_chip),
             format_double(s.ttft_us),
             format_double(s.tpot_us),
             format_double(s.mfu),
             format_double(s.hbm_bandwidth_utilisation),
             std::to_string(s.hbm_used_bytes),
             std::to_string(s.hbm_capacity_bytes),
             s.fits ? "true" : "false"});
  t.render_csv(out);
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
  render_key_values(
      out, {{"step time", format_fixed(step, 2) + " us"},
            {"  compute-bound", format_fixed(s.compute_us, 2) + " us  " + pct(s.compute_us, step)},
            {"  memory-bound", format_fixed(s.memory_us, 2) + " us  " + pct(s.memory_us, step)},
            {"  exposed collectives", format_fixed(s.collective_exposed_us, 2) + " us  " +
                                          pct(s.collective_exposed_us, step)},
            {"  idle", format_fixed(s.idle_us, 2) + " us  " + pct(s.idle_us, step)},
            {"collectives under compute", format_fixed(s.collective_overlapped_us, 2) + " us"},
            {"tokens/s", format_fixed(s.tokens_per_s, 1) + " (" +
                             format_fixed(s.tokens_per_s_per_chip, 2) + " per chip)"},
            {sc.phase == config::Phase::kPrefill ? "time to first token" : "time per output token",
             format_fixed(step / 1000.0, 3) + " ms"},
            {"MFU", format_fixed(100.0 * s.mfu, 2) + "%"},
            {"HBM bandwidth used", format_fixed(100.0 * s.hbm_bandwidth_utilisation, 1) + "%"},
            {"HBM per chip", format_fixed(gib(s.hbm_used_bytes), 2) + " of " +
                                 format_fixed(gib(s.hbm_capacity_bytes), 2) + " GiB (weights " +
                                 format_fixed(gib(s.memory.weight_bytes), 2) + ", KV " +
                                 format_fixed(gib(s.memory.kv_cache_bytes), 2) + ", activations " +
                                 format_fixed(gib(s.memory.activation_peak_bytes), 2) + ")" +
                                 (s.fits ? "" : "  DOES NOT FIT")},
            {"chips simulated", std::to_string(r.simulated_chips) + " standing for " +
                                    std::to_string(r.represented_chips)},
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
}

}  // namespace

void render_step(const StepInputs& in, const engine::StepResult& step,
                 const engine::ServingSummary& s, Format format, std::ostream& out) {
  switch (format) {
    case Format::kJson:
      render_json(in, step, s, out);
      return;
    case Format::kCsv:
      render_csv(in, s, out);
      return;
    case Format::kTable:
      render_text(in, step, s, out);
      return;
  }
}

void render_memory_only(const StepInputs& in, const engine::ServingSummary& s, Format format,
                        std::ostream& out) {
  if (format == Format::kJson) {
    JsonWriter j(out);
    j.begin_object();
    inputs_json(j, in);
    memory_json(j, s, in.allow_oom);
    j.end_object();
    j.finish();
    return;
  }
  out << in.serving.model.name << " does not fit on " << in.run.topology << ": "
      << format_fixed(gib(s.hbm_used_bytes), 2) << " GiB per chip needed (weights "
      << format_fixed(gib(s.memory.weight_bytes), 2) << ", KV cache "
      << format_fixed(gib(s.memory.kv_cache_bytes), 2) << ", activations "
      << format_fixed(gib(s.memory.activation_peak_bytes), 2) << "), "
      << format_fixed(gib(s.hbm_capacity_bytes), 2)
      << " GiB available. Shard further, or pass --allow-oom to simulate anyway.\n";
}

}  // namespace podsim::report
