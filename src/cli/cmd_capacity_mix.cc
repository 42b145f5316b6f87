#include <cmath>
#include <stdexcept>

#include "cli/capacity_mix.h"
#include "cli/exit_codes.h"
#include "config/serve_loader.h"
#include "fleet/capacity_mix.h"
#include "fleet/capacity_report.h"
#include "fleet/engine_oracle.h"
#include "report/format.h"
#include "report/table.h"

namespace podsim::cli {

std::string objectives_text(const fleet::CapacityOptions& options) {
  std::string p = std::to_string(options.percentile);
  p.insert(0, 1, 'p');
  std::string text = p;
  text += " TTFT <= ";
  text += report::format_double(options.ttft_ms);
  text += " ms, ";
  text += p;
  text += " TPOT <= ";
  text += report::format_double(options.tpot_ms);
  text += " ms";
  if (options.tbt_ms > 0) {
    text += ", ";
    text += p;
    text += " TBT <= ";
    text += report::format_double(options.tbt_ms);
    text += " ms";
  }
  text += "; 0 = none";
  return text;
}

void print_capacity_report(Context& ctx, const podsim::output::CapacityReport& report,
                           report::ResultFormat format) {
  switch (format) {
    case report::ResultFormat::kCsv:
      ctx.out << fleet::capacity_csv(report);
      break;
    case report::ResultFormat::kJson:
      ctx.out << fleet::capacity_json(report);
      break;
    case report::ResultFormat::kTextproto:
      ctx.out << report::message_to_textproto(report);
      break;
    case report::ResultFormat::kBinpb:
      ctx.out << report::message_to_binpb(report);
      break;
    case report::ResultFormat::kTable:
      break;
  }
}

int capacity_mix(Context& ctx, const config::ServeSpec& spec, double rate, uint32_t max_copies,
                 const fleet::CapacityOptions& options, report::ResultFormat format,
                 sweep::Transport& transport, unsigned jobs) {
  if (!(rate > 0) || !std::isfinite(rate) || rate > config::kMaxArrivalRatePerS)
    throw UsageError("--target-rate: expected a rate > 0 requests/s");
  if (max_copies < 1 || max_copies > config::kMaxServeReplicas)
    throw UsageError("--max-replicas: expected 1 to " + std::to_string(config::kMaxServeReplicas));
  if (transport.ranks() > 1)
    throw UsageError("--choose-mix runs in one process (use --jobs, not mpirun)");
  // A round of mixes on `jobs` threads, results in order.
  const fleet::MixMeasure measure = [&](const std::vector<std::vector<uint32_t>>& mixes) {
    std::vector<fleet::Probe> out(mixes.size());
    sweep::run_points(
        mixes.size(), transport, jobs,
        [&](uint64_t k) {
          return fleet::encode_probe(fleet::run_mix(spec, mixes[k], rate, options));
        },
        [&](uint64_t k, const std::string& bytes) {
          out[k] = fleet::decode_probe(bytes);
          if (options.on_run)
            options.on_run();
        });
    return out;
  };
  fleet::MixChoice result;
  try {
    result = fleet::choose_mix(spec, options, max_copies, std::max(jobs, 1U), measure);
  } catch (const fleet::StepError& e) {
    throw config::InputError(config::Diagnostic{spec.source_file, e.field(), 0, 0, e.what()});
  } catch (const std::invalid_argument& e) {
    throw config::InputError(config::Diagnostic{spec.source_file, "replicas", 0, 0, e.what()});
  }
  if (format != report::ResultFormat::kTable) {
    print_capacity_report(ctx, fleet::choose_mix_report(spec, rate, options, result), format);
    ctx.out.flush();
    return result.best >= 0 ? kExitOk : kExitCheckFailed;
  }
  std::string p = std::to_string(options.percentile);
  p.insert(0, 1, 'p');
  const bool energy = options.minimise != fleet::Minimise::kChips || options.pricing != nullptr;
  const bool cost = options.pricing != nullptr;
  std::vector<std::string> headers;
  for (const config::ServeReplicaSpec& r : spec.replicas)
    headers.push_back(r.name + "_copies");
  for (const char* h : {"chips", "rate_per_s"})
    headers.emplace_back(h);
  headers.push_back("ttft_" + p + "_s");
  headers.push_back("tpot_" + p + "_s");
  for (const char* h : {"completed", "rejected", "meets_slo"})
    headers.emplace_back(h);
  if (energy)
    headers.emplace_back("j_per_output_token");
  if (cost)
    headers.emplace_back("usd_per_m_output_tokens");
  report::Table t(headers);
  for (const fleet::MixRun& m : result.tried) {
    std::vector<std::string> row;
    for (const uint32_t c : m.counts)
      row.push_back(std::to_string(c));
    row.push_back(std::to_string(m.chips));
    row.push_back(report::format_double(m.run.rate_per_s));
    row.push_back(report::format_double(m.run.ttft_s));
    row.push_back(report::format_double(m.run.tpot_s));
    row.push_back(std::to_string(m.run.completed));
    row.push_back(std::to_string(m.run.rejected));
    row.emplace_back(m.run.ok ? "yes" : "no");
    if (energy)
      row.push_back(m.run.energy_modelled ? report::format_double(m.run.j_per_output_token) : "");
    if (cost)
      row.push_back(m.run.priced ? report::format_double(m.run.usd_per_m_output_tokens) : "");
    t.add_row(row);
  }
  t.render_text(ctx.out);
  ctx.out << "\nmix of '" << spec.name << "' at " << report::format_double(rate) << " requests/s ("
          << result.tried.size() << " of " << result.mixes << " mixes served): ";
  if (result.best >= 0) {
    const fleet::MixRun& b = result.tried[static_cast<size_t>(result.best)];
    for (size_t i = 0; i < b.counts.size(); ++i)
      ctx.out << (i > 0 ? ", " : "") << b.counts[i] << " x " << spec.replicas[i].name;
    ctx.out << " (" << b.chips << " chips)";
  } else {
    ctx.out << "none up to " << max_copies << " copies of each entry meets the objectives";
  }
  ctx.out << " (" << objectives_text(options) << ")\n";
  ctx.out.flush();
  return result.best >= 0 ? kExitOk : kExitCheckFailed;
}

}  // namespace podsim::cli
