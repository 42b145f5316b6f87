#include "config/pricing_loader.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "config/internal/input_parser.h"
#include "config/internal/issue_list.h"
#include "config/internal/pricing_validator.h"
#include "config/internal/sha256.h"
#include "podsim/pricing.pb.h"

namespace podsim::config {
namespace {

using internal::FieldIssue;
using internal::FieldPath;
using internal::InputFormat;
using internal::ParsedInput;

// Every value is checked by the validator first (internal::known_value).
Commitment to_commitment(podsim::Commitment c) {
  switch (c) {
    case podsim::COMMITMENT_SPOT:
      return Commitment::kSpot;
    case podsim::COMMITMENT_1_YEAR:
      return Commitment::kOneYear;
    case podsim::COMMITMENT_3_YEAR:
      return Commitment::kThreeYear;
    default:
      return Commitment::kOnDemand;
  }
}

PricingSpec parse_pricing(InputFormat format, std::string_view contents, std::string source_name) {
  podsim::Pricing message;
  const ParsedInput parsed = ParsedInput::parse(format, contents, source_name, message);
  parsed.throw_if_invalid(internal::validate_pricing(message));
  PricingSpec spec;
  spec.name = message.name();
  spec.description = message.description();
  spec.date = message.date();
  spec.source_file = std::move(source_name);
  spec.source_sha256 = internal::sha256_hex(contents);
  spec.prices.reserve(static_cast<size_t>(message.prices_size()));
  for (const ChipPrice& p : message.prices()) {
    spec.prices.push_back(
        ChipPriceSpec{p.chip(), to_commitment(p.commitment()), p.usd_per_chip_hour(), p.source()});
  }
  spec.commitment = to_commitment(message.commitment());
  const Diagnostic commitment_at = parsed.diagnostic(FieldIssue{FieldPath()("commitment"), ""});
  spec.commitment_line = commitment_at.line;
  spec.commitment_column = commitment_at.column;
  spec.electricity_usd_per_kwh = message.electricity_usd_per_kwh();
  spec.chip_price_includes_electricity = message.chip_price_includes_electricity();
  spec.pue = message.pue() == 0 ? 1.0 : message.pue();
  spec.carbon_gco2e_per_kwh = message.carbon_gco2e_per_kwh();
  spec.source = message.source();
  return spec;
}

}  // namespace

PricingSpec parse_pricing_text(std::string_view text, std::string source_name) {
  return parse_pricing(InputFormat::kText, text, std::move(source_name));
}

PricingSpec parse_pricing_binary(std::string_view bytes, std::string source_name) {
  return parse_pricing(InputFormat::kBinary, bytes, std::move(source_name));
}

PricingSpec load_pricing_file(const std::filesystem::path& path) {
  return parse_pricing(internal::format_of(path), read_file_to_string(path), path.string());
}

const ChipPriceSpec* price_for(const PricingSpec& pricing, std::string_view chip) {
  for (const ChipPriceSpec& p : pricing.prices) {
    if (p.chip == chip && p.commitment == pricing.commitment)
      return &p;
  }
  return nullptr;
}

const ChipPriceSpec& require_price(const PricingSpec& pricing, std::string_view chip) {
  if (const ChipPriceSpec* p = price_for(pricing, chip))
    return *p;
  std::vector<std::string> commitments;  // the chip's, in file order
  std::vector<std::string> chips;        // every chip priced, first mention order
  for (const ChipPriceSpec& p : pricing.prices) {
    if (p.chip == chip)
      commitments.emplace_back(commitment_name(p.commitment));
    std::string quoted_chip = internal::quoted(p.chip);
    if (std::find(chips.begin(), chips.end(), quoted_chip) == chips.end())
      chips.push_back(std::move(quoted_chip));
  }
  Diagnostic d;
  d.file = pricing.source_file;
  std::string message = "no price for chip " + internal::quoted(chip);
  if (commitments.empty()) {
    d.field = "prices";
    message += " at any commitment; the file prices ";
    message += internal::join(chips);
    message += ": add a price for the chip, or use a pricing file that has one";
  } else {
    d.field = "commitment";
    d.line = pricing.commitment_line;
    d.column = pricing.commitment_column;
    message += " at ";
    message += commitment_name(pricing.commitment);
    message += "; the file prices it at ";
    message += internal::join(commitments);
    message += ": choose one of those as `commitment`, or add a price";
  }
  d.message = std::move(message);
  throw InputError(std::move(d));
}

}  // namespace podsim::config
