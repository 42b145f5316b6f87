#include "report/energy_report.h"

#include <string>

#include "report/format.h"
#include "report/result_energy.h"
#include "report/table.h"

namespace podsim::report {

void render_energy(const engine::ServingSummary& s, sim::Time step_time, std::ostream& out) {
  const engine::StepEnergy& e = s.energy;
  out << '\n';
  if (!e.modelled) {
    if (!e.unmodelled_reason.empty())
      out << "energy: not computed: " << e.unmodelled_reason << '\n';
    else
      out << "energy: the topology's chip has no power model (chip.power; docs/energy.md)\n";
    return;
  }
  const engine::Picojoules total = e.parts.total();
  const double j = joules(total);
  const double seconds = step_time.to_s();
  const std::string per_token =
      s.tokens > 0 ? format_fixed(1e3 * j / static_cast<double>(s.tokens), 3) + " mJ per token (" +
                         format_fixed(static_cast<double>(s.tokens) / j, 3) + " tokens per J)"
                   : "-";
  const std::string clock = s.power.clock_factor != 1.0
                                ? "; clock " + format_fixed(s.power.clock_factor, 3) +
                                      " x nominal at " + format_fixed(s.power.voltage, 3) +
                                      " x nominal voltage"
                                : "";
  render_key_values(
      out, {{"energy per step", format_fixed(j, 3) + " J over " + std::to_string(e.powered_chips) +
                                    " chips and their hosts" + clock},
            {"  per token", per_token},
            {"  mean power", format_fixed(seconds > 0 ? j / seconds / 1e3 : 0, 2) + " kW (" +
                                 format_fixed(seconds > 0 ? j / seconds / e.powered_chips : 0, 1) +
                                 " W per chip, host included)"},
            {"  peak power", format_fixed(e.peak_watts / 1e3, 2) +
                                 " kW (every chip in its densest class at once)"}});
  out << '\n';
  const auto pct = [total](engine::Picojoules pj) {
    return total > 0
               ? format_fixed(100.0 * static_cast<double>(pj) / static_cast<double>(total), 1) + "%"
               : "-";
  };
  Table t({"energy", "J", "share", "", "by time class", "J ", "share "});
  const engine::EnergyParts& p = e.parts;
  const engine::ClassEnergy& c = e.classes;
  const std::pair<const char*, engine::Picojoules> parts[] = {{"chip idle power", p.idle_pj},
                                                              {"host power", p.host_pj},
                                                              {"matrix units", p.mxu_pj},
                                                              {"vector unit", p.vector_pj},
                                                              {"HBM", p.hbm_pj},
                                                              {"VMEM", p.vmem_pj},
                                                              {"ICI", p.ici_pj},
                                                              {"DCN", p.dcn_pj}};
  const std::pair<const char*, engine::Picojoules> classes[] = {{"compute-bound", c.compute_pj},
                                                                {"memory-bound", c.memory_pj},
                                                                {"collectives", c.collective_pj},
                                                                {"idle", c.idle_pj},
                                                                {"host", c.host_pj},
                                                                {"", 0},
                                                                {"", 0},
                                                                {"", 0}};
  for (size_t i = 0; i < 8; ++i) {
    const bool has_class = classes[i].first[0] != '\0';
    t.add_row({parts[i].first, format_fixed(joules(parts[i].second), 3), pct(parts[i].second), "",
               classes[i].first, has_class ? format_fixed(joules(classes[i].second), 3) : "",
               has_class ? pct(classes[i].second) : ""});
  }
  t.add_row({"total", format_fixed(j, 3), pct(total), "", "total", format_fixed(j, 3), pct(total)});
  t.render_text(out);
}

void render_cost(const podsim::Cost& cost, std::ostream& out) {
  if (!cost.priced()) {
    return;
  }
  out << '\n';
  render_key_values(
      out,
      {{"cost", "$" + format_fixed(cost.usd_per_m_tokens(), 4) + " per million tokens ($" +
                    format_fixed(cost.usd_per_hour(), 2) + " per hour of such steps)"},
       {"  prices", cost.pricing() + " (read " + cost.pricing_date() + "), " + cost.commitment() +
                        ", $" + format_fixed(cost.usd_per_chip_hour(), 2) + " per chip-hour"},
       {"  emissions", format_fixed(cost.gco2e_per_m_tokens(), 2) + " gCO2e per million tokens"}});
}

}  // namespace podsim::report
