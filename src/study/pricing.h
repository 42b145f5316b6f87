// A run's cost at a pricing file's prices (--pricing; docs/energy.md): the
// check made before the run, and the figures filled after it.
#pragma once

#include <optional>

#include "config/diagnostics.h"
#include "config/pricing_spec.h"
#include "config/topology_spec.h"
#include "engine/serving_summary.h"
#include "podsim/result.pb.h"

namespace podsim::study {

// Why `pricing` cannot price a run on `pod`: the chip has no price at the
// file's commitment (naming the file's `commitment` or `prices`), or the
// file counts electricity or carbon and the chip has no power model (naming
// the topology's chip.power). nullopt when it can.
std::optional<config::InputError> pricing_conflict(const config::PodSpec& pod,
                                                   const config::PricingSpec& pricing);

// serving.cost for a simulated step: every powered chip held for the step
// time, drawing the step's energy, producing its tokens. Precondition:
// pricing_conflict() found nothing.
void price_step(const config::PodSpec& pod, const config::PricingSpec& pricing,
                const engine::ServingSummary& s, podsim::ServingResult& out);

}  // namespace podsim::study
