#include "fleet/serve_output.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/reflection.h>

#include <sstream>
#include <string_view>

#include "report/format.h"
#include "report/output_json.h"
#include "report/table.h"

namespace podsim::fleet {
namespace {

using report::format_double;

void fill(const Percentiles& p, podsim::output::LatencyPercentiles& out) {
  out.set_mean(p.mean);
  out.set_p50(p.p50);
  out.set_p90(p.p90);
  out.set_p99(p.p99);
  out.set_max(p.max);
  out.set_count(p.count);
}

// Scalar fields of `m` in declaration order, nested messages flattened
// ("ttft_s.p99"); repeated fields left out.
void flatten(const google::protobuf::Message& m, const std::string& prefix,
             std::vector<std::string>& names, std::vector<std::string>& cells) {
  namespace pb = google::protobuf;
  const pb::Descriptor* d = m.GetDescriptor();
  const pb::Reflection* r = m.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const pb::FieldDescriptor* f = d->field(i);
    if (f->is_repeated())
      continue;
    const std::string name = prefix + std::string(f->name());
    switch (f->cpp_type()) {
      case pb::FieldDescriptor::CPPTYPE_MESSAGE:
        flatten(r->GetMessage(m, f), name + ".", names, cells);
        continue;
      case pb::FieldDescriptor::CPPTYPE_DOUBLE:
        cells.push_back(format_double(r->GetDouble(m, f)));
        break;
      case pb::FieldDescriptor::CPPTYPE_UINT64:
        cells.push_back(std::to_string(r->GetUInt64(m, f)));
        break;
      case pb::FieldDescriptor::CPPTYPE_UINT32:
        cells.push_back(std::to_string(r->GetUInt32(m, f)));
        break;
      case pb::FieldDescriptor::CPPTYPE_BOOL:
        cells.push_back(r->GetBool(m, f) ? "true" : "false");
        break;
      case pb::FieldDescriptor::CPPTYPE_STRING:
        cells.push_back(report::csv_escape(r->GetString(m, f)));
        break;
      default:
        cells.push_back("");
        break;
    }
    names.push_back(name);
  }
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i > 0)
      out += ',';
    out += v[i];
  }
  return out + "\n";
}

std::string ms(double s) {
  return report::format_fixed(s * 1e3, 2);
}

}  // namespace

podsim::output::ServeReport make_report(const config::ServeSpec& spec, const ServeOutput& out) {
  const ServeSummary& s = out.summary;
  podsim::output::ServeReport r;
  r.set_name(spec.name);
  r.set_source_file(spec.source_file);
  r.set_seed(spec.seed);
  r.set_requests(s.requests);
  r.set_completed(s.completed);
  r.set_rejected(s.rejected);
  r.set_preemptions(s.preemptions);
  r.set_duration_s(s.duration_s);
  r.set_requests_per_s(s.requests_per_s);
  r.set_output_tokens_per_s(s.output_tokens_per_s);
  r.set_total_tokens_per_s(s.total_tokens_per_s);
  fill(s.ttft_s, *r.mutable_ttft_s());
  fill(s.tpot_s, *r.mutable_tpot_s());
  fill(s.e2e_s, *r.mutable_e2e_s());
  fill(s.queue_delay_s, *r.mutable_queue_delay_s());
  fill(s.kv_transfer_s, *r.mutable_kv_transfer_s());
  r.set_slo_ttft_ms(s.slo_ttft_ms);
  r.set_slo_tpot_ms(s.slo_tpot_ms);
  r.set_slo_met(s.slo_met);
  r.set_goodput_requests_per_s(s.goodput_requests_per_s);
  r.set_slo_attainment(s.slo_attainment);
  r.set_mean_requests_in_system(s.mean_requests_in_system);
  r.set_chip_utilisation(s.chip_utilisation);
  r.set_model_flops_utilisation(s.model_flops_utilisation);
  r.set_kv_utilisation(s.kv_utilisation);
  r.set_chips(s.chips);
  r.set_events(out.run.events);
  r.set_timeseries_truncated(out.run.samples_truncated);
  podsim::output::ServeBuckets& b = *r.mutable_buckets();
  b.set_batch_steps_per_octave(s.buckets.batch_steps_per_octave);
  b.set_length_steps_per_octave(s.buckets.length_steps_per_octave);
  b.set_input_rounding_bound(s.buckets.input_rounding_bound);
  b.set_error_measured(s.buckets.error_measured);
  b.set_step_time_error_bound(s.buckets.step_time_error_bound);
  b.set_buckets(s.buckets.buckets);
  b.set_simulated_steps(s.buckets.simulated_steps);
  // Copies of one spec replica share its KV figures.
  size_t spec_index = 0;
  uint32_t copy = 0;
  for (const ReplicaSummary& rs : s.replicas) {
    const ReplicaInfo& info = out.replicas[spec_index];
    podsim::output::ServeReplicaReport& o = *r.add_replicas();
    o.set_name(rs.name);
    o.set_chips(rs.chips);
    o.set_requests(rs.requests);
    o.set_steps(rs.steps);
    o.set_busy_fraction(rs.busy_fraction);
    o.set_model_flops_utilisation(rs.model_flops_utilisation);
    o.set_kv_mean_utilisation(rs.kv_mean_utilisation);
    o.set_kv_peak_utilisation(rs.kv_peak_utilisation);
    o.set_kv_blocks(rs.kv_blocks);
    o.set_kv_block_tokens(spec.replicas[spec_index].kv_block_tokens);
    o.set_peak_batch(rs.peak_batch);
    o.set_kv_bytes_per_token_per_chip(info.kv.kv_bytes_per_token);
    o.set_weight_bytes_per_chip(info.kv.weight_bytes);
    o.set_activation_bytes_per_chip(info.kv.activation_bytes);
    if (++copy == info.copies) {
      copy = 0;
      ++spec_index;
    }
  }
  return r;
}

void write_requests_csv(const ServeOutput& out, const std::function<void(std::string_view)>& sink) {
  constexpr size_t kPiece = size_t{1} << 20;  // handed on at about 1 MiB
  std::string s =
      "request,arrival_s,replica,prompt_tokens,output_tokens,status,queue_delay_s,"
      "first_token_s,finish_s,ttft_s,tpot_s,e2e_s,preemptions,decode_replica,kv_transfer_s\n";
  const auto& reqs = out.run.requests;
  for (size_t i = 0; i < reqs.size(); ++i) {
    if (s.size() >= kPiece) {
      sink(s);
      s.clear();
    }
    const RequestRecord& r = reqs[i];
    s += std::to_string(i);
    s += ',' + format_double(r.arrival.to_s());
    s += ',' + report::csv_escape(out.setups[r.replica].name);
    s += ',' + std::to_string(r.prompt_tokens);
    s += ',' + std::to_string(r.output_tokens);
    if (r.rejected || !r.done) {
      s += r.rejected ? ",rejected,,," : ",unfinished,,,";
      s += r.rejected ? format_double(r.finish.to_s()) : "";
      s += ",,,," + std::to_string(r.preemptions) + ",,\n";
      continue;
    }
    const double tpot =
        r.output_tokens > 1 ? (r.finish - r.first_token).to_s() / (r.output_tokens - 1) : 0;
    s += ",ok," + format_double((r.admitted - r.arrival).to_s());
    s += ',' + format_double(r.first_token.to_s());
    s += ',' + format_double(r.finish.to_s());
    s += ',' + format_double((r.first_token - r.arrival).to_s());
    s += ',' + (r.output_tokens > 1 ? format_double(tpot) : std::string());
    s += ',' + format_double((r.finish - r.arrival).to_s());
    s += ',' + std::to_string(r.preemptions);
    s += ',' + report::csv_escape(out.setups[r.decode_replica].name);
    s += ',' + format_double(r.kv_transfer.to_s()) + "\n";
  }
  sink(s);
}

std::string requests_csv(const ServeOutput& out) {
  std::string all;
  write_requests_csv(out, [&all](std::string_view piece) { all += piece; });
  return all;
}

std::string timeseries_csv(const ServeOutput& out) {
  std::string s = "time_s,replica,waiting,running,kv_blocks_used,kv_utilisation\n";
  for (const TimeSample& t : out.run.samples) {
    const ReplicaSetup& r = out.setups[t.replica];
    s += format_double(t.time.to_s()) + ',' + report::csv_escape(r.name) + ',' +
         std::to_string(t.waiting) + ',' + std::to_string(t.running) + ',' +
         std::to_string(t.kv_blocks_used) + ',' +
         format_double(static_cast<double>(t.kv_blocks_used) / static_cast<double>(r.kv_blocks)) +
         "\n";
  }
  return s;
}

std::string summary_json(const podsim::output::ServeReport& report) {
  return report::to_json(report, report::JsonStyle{true, true}) + "\n";
}

std::string summary_csv(const podsim::output::ServeReport& report) {
  std::vector<std::string> names;
  std::vector<std::string> cells;
  flatten(report, "", names, cells);
  return join(names) + join(cells);
}

void render_summary(std::ostream& os, const podsim::output::ServeReport& r) {
  os << "serve '" << r.name() << "': " << r.requests() << " requests (" << r.completed()
     << " completed, " << r.rejected() << " rejected, " << r.preemptions() << " preemptions) over "
     << report::format_fixed(r.duration_s(), 3) << " s on " << r.chips() << " chips\n\n";
  report::Table t({"latency (ms)", "mean", "p50", "p90", "p99", "max"});
  auto row = [&](const char* name, const podsim::output::LatencyPercentiles& p) {
    t.add_row({name, ms(p.mean()), ms(p.p50()), ms(p.p90()), ms(p.p99()), ms(p.max())});
  };
  row("TTFT", r.ttft_s());
  row("TPOT", r.tpot_s());
  row("end-to-end", r.e2e_s());
  row("queue delay", r.queue_delay_s());
  t.render_text(os);
  os << "\n";
  std::vector<std::pair<std::string, std::string>> kv = {
      {"throughput", report::format_fixed(r.requests_per_s(), 3) + " requests/s, " +
                         report::format_fixed(r.output_tokens_per_s(), 1) + " output tokens/s"},
      {"goodput", report::format_fixed(r.goodput_requests_per_s(), 3) + " requests/s (" +
                      report::format_fixed(100 * r.slo_attainment(), 2) +
                      "% meet TTFT <= " + report::format_double(r.slo_ttft_ms()) +
                      " ms, TPOT <= " + report::format_double(r.slo_tpot_ms()) + " ms; 0 = none)"},
      {"chip utilisation",
       report::format_fixed(100 * r.chip_utilisation(), 2) + "% of the time busy, " +
           report::format_fixed(100 * r.model_flops_utilisation(), 2) + "% model FLOP utilisation"},
      {"KV-cache utilisation",
       report::format_fixed(100 * r.kv_utilisation(), 2) + "% (time-averaged)"},
      {"requests in system", report::format_fixed(r.mean_requests_in_system(), 3) + " (mean)"},
      {"step-time buckets",
       std::to_string(r.buckets().buckets()) + " simulated (" +
           std::to_string(r.buckets().simulated_steps()) + " pod runs); counts rounded up < " +
           report::format_fixed(100 * r.buckets().input_rounding_bound(), 1) + "%" +
           (r.buckets().error_measured()
                ? "; step-time error <= " +
                      report::format_fixed(100 * r.buckets().step_time_error_bound(), 2) + "%"
                : "; step-time error not measured (--no-bucket-error)")},
  };
  report::render_key_values(os, kv);
}

}  // namespace podsim::fleet
