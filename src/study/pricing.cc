#include "study/pricing.h"

#include "config/pricing_loader.h"
#include "report/result_cost.h"
#include "report/result_energy.h"

namespace podsim::study {
namespace {

// The file counts electricity or carbon, which need the run's energy.
bool counts_energy(const config::PricingSpec& pricing) {
  return pricing.carbon_gco2e_per_kwh > 0 || !pricing.chip_price_includes_electricity;
}

}  // namespace

std::optional<config::InputError> pricing_conflict(const config::PodSpec& pod,
                                                   const config::PricingSpec& pricing) {
  try {
    (void)config::require_price(pricing, pod.chip.name);
  } catch (const config::InputError& e) {
    return e;
  }
  if (counts_energy(pricing) && !pod.chip.power.modelled) {
    return config::InputError(config::Diagnostic{
        pod.source_file, "chip.power", 0, 0,
        "the pricing file '" + pricing.source_file +
            "' counts electricity or carbon, which needs the chip's power model; this "
            "topology has none (docs/energy.md)"});
  }
  return std::nullopt;
}

void price_step(const config::PodSpec& pod, const config::PricingSpec& pricing,
                const engine::ServingSummary& s, podsim::ServingResult& out) {
  const config::ChipPriceSpec& price = config::require_price(pricing, pod.chip.name);
  const engine::StepEnergy& e = s.energy;
  if (counts_energy(pricing) && !e.modelled) {
    out.mutable_cost()->set_priced(false);
    out.mutable_cost()->set_unpriced_reason(
        "the pricing file counts electricity or carbon and the step's energy is not computed: " +
        e.unmodelled_reason);
    return;
  }
  const double chips = e.modelled ? static_cast<double>(e.powered_chips)
                                  : static_cast<double>(pod.chip_count() - pod.dead_chips.size());
  report::fill_cost(pricing, price, chips, s.step_time_us * 1e-6, report::joules(e.parts.total()),
                    s.tokens, *out.mutable_cost());
}

}  // namespace podsim::study
