// Loading pricing files (proto/podsim/pricing.proto): chip prices per hour
// under each commitment, electricity's price, PUE and carbon intensity, each
// cited.
//
// Loading follows the other loaders' conventions: text or binary by
// extension, unknown fields rejected, every problem an InputError naming the
// file, the field path, the reason and, for text input, the line:column.
// Pricing files take no --set overrides: they are small files, edited as
// files.
//
// The rules: name not empty; date a calendar date written YYYY-MM-DD; at
// least one price; each price with a chip, a known commitment, a finite
// usd_per_chip_hour >= 0 and a source; no two prices for the same chip and
// commitment; commitment a known value; electricity_usd_per_kwh and
// carbon_gco2e_per_kwh finite and >= 0; pue 0 (meaning 1) or in [1, 3]; and
// `source` required when any of electricity_usd_per_kwh, pue and
// carbon_gco2e_per_kwh is set.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "config/diagnostics.h"
#include "config/pricing_spec.h"

namespace podsim::config {

// Reads and parses a pricing file. The extension picks the format, as for
// topologies: ".pb" and ".binpb" are binary, everything else is text.
// source_file and diagnostics name the file as `path` spells it.
PricingSpec load_pricing_file(const std::filesystem::path& path);

// Protobuf text format; `source_name` names the input in diagnostics and
// becomes PricingSpec::source_file.
PricingSpec parse_pricing_text(std::string_view text, std::string source_name);

// Protobuf binary wire format. Unknown fields are errors here too.
PricingSpec parse_pricing_binary(std::string_view bytes, std::string source_name);

// The price of `chip` (ChipSpec::name) at the pricing's chosen commitment;
// nullptr when the file has none. O(prices).
const ChipPriceSpec* price_for(const PricingSpec& pricing, std::string_view chip);

// price_for(), or an InputError naming the pricing file: at the field
// `commitment` (and where the file wrote it) when the chip has prices but
// none at the chosen commitment, the message listing the commitments it has;
// at `prices` when the file prices the chip at no commitment, the message
// listing the chips it does price. O(prices).
const ChipPriceSpec& require_price(const PricingSpec& pricing, std::string_view chip);

}  // namespace podsim::config
