#include "config/internal/pricing_validator.h"

#include <map>
#include <string>
#include <utility>

#include "config/internal/enum_values.h"
#include "podsim/pricing.pb.h"

namespace podsim::config::internal {
namespace {

// The digits of `s` as a number; `s` holds only digits.
int decimal_value(std::string_view s) {
  int v = 0;
  for (const char c : s)
    v = v * 10 + (c - '0');
  return v;
}

int month_length(int year, int month) {
  constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

void check_date(const std::string& date, const FieldPath& path, IssueList& issues) {
  if (date.empty()) {
    issues.add(path,
               "required: the date the prices were read, as YYYY-MM-DD (prices are a snapshot)");
  } else if (!is_iso_date(date)) {
    issues.add(path, "must be a calendar date written YYYY-MM-DD, got " + quoted(date));
  }
}

// PUE is 0 (unset, meaning 1) or in [1, kMaxPue].
void check_pue(double pue, const FieldPath& path, IssueList& issues) {
  if (!issues.finite(path, pue))
    return;
  if (pue == 0 || (pue >= 1 && pue <= kMaxPue))
    return;
  issues.add(path, "must be in [1, " + format_number(kMaxPue) +
                       "] (facility energy over IT energy; 0 means 1), got " + format_number(pue));
}

void check_prices(const Pricing& p, const FieldPath& root, IssueList& issues) {
  if (p.prices().empty()) {
    issues.add(root("prices"),
               "must have at least one price (chip, commitment, "
               "usd_per_chip_hour, source)");
    return;
  }
  const auto& commitments = *podsim::Commitment_descriptor();
  // (chip, commitment) -> the index of the first price for it.
  std::map<std::pair<std::string, int>, int> seen;
  for (int i = 0; i < p.prices_size(); ++i) {
    const ChipPrice& price = p.prices(i);
    const FieldPath at = root("prices", i);
    if (price.chip().empty()) {
      issues.add(at("chip"),
                 "must not be empty: name the chip as topologies do (chip.name, e.g. \"TPU v5e\")");
    }
    const bool known = known_value(commitments, price.commitment(), at("commitment"), issues);
    issues.non_negative(at("usd_per_chip_hour"), price.usd_per_chip_hour());
    if (price.source().empty()) {
      issues.add(at("source"),
                 "required: cite where the price came from (the page and the date it was read)");
    }
    if (price.chip().empty() || !known)
      continue;
    const auto [first, inserted] = seen.emplace(std::pair(price.chip(), price.commitment()), i);
    if (!inserted) {
      std::string message = "a second price for chip " + quoted(price.chip()) + " at ";
      message += commitments.FindValueByNumber(price.commitment())->name();
      message += " (the first is prices[" + std::to_string(first->second) + "])";
      message += ": give one price per chip and commitment";
      issues.add(at, std::move(message));
    }
  }
}

}  // namespace

bool is_iso_date(std::string_view date) {
  if (date.size() != 10 || date[4] != '-' || date[7] != '-')
    return false;
  for (size_t i = 0; i < date.size(); ++i) {
    if (i != 4 && i != 7 && (date[i] < '0' || date[i] > '9'))
      return false;
  }
  const int year = decimal_value(date.substr(0, 4));
  const int month = decimal_value(date.substr(5, 2));
  const int day = decimal_value(date.substr(8, 2));
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= month_length(year, month);
}

std::vector<FieldIssue> validate_pricing(const Pricing& p) {
  IssueList issues;
  const FieldPath root;
  if (p.name().empty())
    issues.add(root("name"), "must not be empty");
  check_date(p.date(), root("date"), issues);
  check_prices(p, root, issues);
  known_value(*podsim::Commitment_descriptor(), p.commitment(), root("commitment"), issues);
  issues.non_negative(root("electricity_usd_per_kwh"), p.electricity_usd_per_kwh());
  check_pue(p.pue(), root("pue"), issues);
  issues.non_negative(root("carbon_gco2e_per_kwh"), p.carbon_gco2e_per_kwh());
  if (p.source().empty() &&
      (p.electricity_usd_per_kwh() != 0 || p.pue() != 0 || p.carbon_gco2e_per_kwh() != 0)) {
    issues.add(root("source"),
               "required when electricity_usd_per_kwh, pue or carbon_gco2e_per_kwh is set: cite "
               "where they came from, with dates");
  }
  return issues.issues();
}

}  // namespace podsim::config::internal
