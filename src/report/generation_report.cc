#include "report/generation_report.h"

#include <string>

#include "report/format.h"  // format_fixed
#include "report/table.h"

namespace podsim::report {
namespace {

std::string gib(uint64_t bytes) {
  return format_fixed(static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0), 2);
}

std::string ms(double us) {
  return format_fixed(us / 1000.0, 3) + " ms";
}

std::string percent(double fraction, int digits) {
  return format_fixed(100.0 * fraction, digits) + "%";
}

}  // namespace

void render_generation(const config::ScenarioSpec& sc, const podsim::GenerationResult& g,
                       uint64_t hbm_capacity_bytes, std::ostream& out) {
  out << "generation: " << g.output_len() << (g.output_len() == 1 ? " token" : " tokens")
      << " per sequence after a " << sc.prompt_len << "-token prompt"
      << (sc.context_len > 0 ? " (" + std::to_string(sc.context_len) + " tokens already cached)"
                             : std::string())
      << ", batch " << sc.batch << "\n";
  std::string tpot = "-";
  if (g.decode_steps() > 0) {
    tpot = "mean " + ms(g.tpot_mean_us()) + ", first " + ms(g.tpot_first_us()) + ", last " +
           ms(g.tpot_last_us()) + " (" + std::to_string(g.decode_steps()) +
           " decode steps, context " + std::to_string(g.first_decode_context_len()) + " .. " +
           std::to_string(g.last_decode_context_len()) + ")";
  }
  std::string simulated = "none: the prefill samples the only token";
  if (g.steps_mode() == "bisection") {
    simulated = std::to_string(g.simulated_decode_steps()) + " of " +
                std::to_string(g.decode_steps()) + " by bisection (steps " + g.simulated_steps() +
                "); largest midpoint error " +
                (g.max_midpoint_error() < 5e-6 ? std::string("< 0.001%")
                                               : percent(g.max_midpoint_error(), 3)) +
                ", bound " + percent(g.step_tolerance(), 3);
  } else if (g.decode_steps() > 0) {
    simulated = "every step (" + std::to_string(g.simulated_decode_steps()) + ")";
  }
  const bool decodes = g.decode_steps() > 0;
  std::string tokens_per_s = format_fixed(g.tokens_per_s(), 1) + " (" +
                             format_fixed(g.tokens_per_s_per_chip(), 2) + " per chip)";
  std::string hbm = "prefill " + gib(g.prefill_hbm_used_bytes());
  if (decodes) {
    tokens_per_s += "; decode alone " + format_fixed(g.decode_tokens_per_s(), 1);
    hbm += ", last decode step " + gib(g.last_hbm_used_bytes());
  }
  hbm += " of " + gib(hbm_capacity_bytes) + " GiB" + (g.fits() ? "" : "  DOES NOT FIT");
  std::vector<std::pair<std::string, std::string>> rows = {
      {"time to first token", ms(g.ttft_us()) + " (the prefill step)"},
      {"time per output token", tpot},
      {"total latency", ms(g.total_us())},
      {"tokens/s", tokens_per_s},
      {"MFU over the generation", percent(g.mfu(), 2)},
      {"HBM per chip", hbm},
      {"decode steps simulated", simulated}};
  if (g.energy_j() > 0) {
    std::string energy = format_fixed(g.energy_j(), 1) + " J (prefill " +
                         format_fixed(g.prefill_energy_j(), 1) + " J), " +
                         format_fixed(1e3 * g.j_per_token(), 3) + " mJ per token, mean " +
                         format_fixed(g.mean_power_w() / 1e3, 2) + " kW";
    if (g.usd_per_m_tokens() > 0) {
      energy += "; $" + format_fixed(g.usd_per_m_tokens(), 4) + " and " +
                format_fixed(g.gco2e_per_m_tokens(), 2) + " gCO2e per million tokens";
    }
    rows.emplace_back("energy", energy);
  }
  render_key_values(out, rows);
  out << '\n';
}

}  // namespace podsim::report
