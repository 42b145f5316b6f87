// Pricing files (config/pricing_loader.h): a good file loads whole, text and
// binary alike; every rule reports the file, the field and, for text, the
// line:column; price_for() and require_price() pick the chosen commitment.
#include "config/pricing_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/workload_loader.h"
#include "podsim/pricing.pb.h"
#include "test_support.h"

namespace podsim::config {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::IsDiagnostic;
using ::testing::Not;
using testing::TempDir;

// A valid pricing file; the line numbers are those the tests below expect.
constexpr const char* kValidPricing =
    "# proto-file: podsim/pricing.proto\n"                                      // 1
    "# proto-message: podsim.Pricing\n"                                         // 2
    "name: \"p\"\n"                                                             // 3
    "description: \"d\"\n"                                                      // 4
    "date: \"2026-01-15\"\n"                                                    // 5
    "prices { chip: \"TPU v5e\" usd_per_chip_hour: 1.2 source: \"page A\" }\n"  // 6
    "prices { chip: \"TPU v5e\" commitment: COMMITMENT_1_YEAR\n"                // 7
    "         usd_per_chip_hour: 0.84 source: \"page B\" }\n"                   // 8
    "prices { chip: \"TPU v5p\" commitment: COMMITMENT_3_YEAR\n"                // 9
    "         usd_per_chip_hour: 1.89 source: \"page C\" }\n"                   // 10
    "commitment: COMMITMENT_1_YEAR\n"                                           // 11
    "electricity_usd_per_kwh: 0.08\n"                                           // 12
    "chip_price_includes_electricity: true\n"                                   // 13
    "pue: 1.09\n"                                                               // 14
    "carbon_gco2e_per_kwh: 125\n"                                               // 15
    "source: \"grid and facility figures\"\n";                                  // 16

// kValidPricing with the first occurrence of `from` replaced by `to`.
std::string pricing_edited(const std::string& from, const std::string& to) {
  std::string text = kValidPricing;
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

// The diagnostics of the InputError `text` must raise (loaded as "p.textproto").
std::vector<Diagnostic> pricing_errors(const std::string& text) {
  try {
    parse_pricing_text(text, "p.textproto");
  } catch (const InputError& e) {
    return e.diagnostics();
  }
  ADD_FAILURE() << "loaded:\n" << text;
  return {};
}

// The one diagnostic of `text`, which must name the file and `field`.
Diagnostic pricing_error(const std::string& text, const std::string& field,
                         const std::string& message_part) {
  const std::vector<Diagnostic> e = pricing_errors(text);
  EXPECT_THAT(e, ElementsAre(IsDiagnostic(field, message_part)));
  if (e.empty())
    return {};
  EXPECT_EQ(e[0].file, "p.textproto");
  EXPECT_THAT(e[0].to_string(), AllOf(HasSubstr("p.textproto"), HasSubstr(field)));
  return e[0];
}

TEST(PricingLoaderTest, GoodFileLoadsEveryField) {
  const TempDir dir;
  const auto path = dir.write("p.textproto", kValidPricing);
  const PricingSpec p = load_pricing_file(path);
  EXPECT_EQ(p.name, "p");
  EXPECT_EQ(p.description, "d");
  EXPECT_EQ(p.date, "2026-01-15");
  EXPECT_EQ(p.source_file, path.string());
  EXPECT_EQ(p.source_sha256.size(), 64U);
  ASSERT_EQ(p.prices.size(), 3U);
  EXPECT_EQ(p.prices[0], (ChipPriceSpec{"TPU v5e", Commitment::kOnDemand, 1.2, "page A"}));
  EXPECT_EQ(p.prices[1], (ChipPriceSpec{"TPU v5e", Commitment::kOneYear, 0.84, "page B"}));
  EXPECT_EQ(p.prices[2], (ChipPriceSpec{"TPU v5p", Commitment::kThreeYear, 1.89, "page C"}));
  EXPECT_EQ(p.commitment, Commitment::kOneYear);
  EXPECT_EQ(p.commitment_line, 11);
  EXPECT_EQ(p.commitment_column, 1);
  EXPECT_DOUBLE_EQ(p.electricity_usd_per_kwh, 0.08);
  EXPECT_TRUE(p.chip_price_includes_electricity);
  EXPECT_DOUBLE_EQ(p.pue, 1.09);
  EXPECT_DOUBLE_EQ(p.carbon_gco2e_per_kwh, 125);
  EXPECT_EQ(p.source, "grid and facility figures");
}

TEST(PricingLoaderTest, UnsetPueIsOneAndUnsetCommitmentIsOnDemand) {
  const PricingSpec p = parse_pricing_text(
      "name: \"p\" date: \"2026-01-15\" prices { chip: \"c\" usd_per_chip_hour: 1 source: \"s\" }",
      "p.textproto");
  EXPECT_EQ(p.pue, 1.0);
  EXPECT_EQ(p.commitment, Commitment::kOnDemand);
  EXPECT_EQ(p.commitment_line, 0);  // not written
  EXPECT_EQ(p.electricity_usd_per_kwh, 0);
  EXPECT_FALSE(p.chip_price_includes_electricity);
  EXPECT_EQ(p.carbon_gco2e_per_kwh, 0);
}

TEST(PricingLoaderTest, BinaryRoundTripEqualsText) {
  const PricingSpec text = parse_pricing_text(kValidPricing, "p.binpb");
  podsim::Pricing m;
  m.set_name("p");
  m.set_description("d");
  m.set_date("2026-01-15");
  const auto add = [&](const char* chip, podsim::Commitment c, double usd, const char* source) {
    podsim::ChipPrice* price = m.add_prices();
    price->set_chip(chip);
    price->set_commitment(c);
    price->set_usd_per_chip_hour(usd);
    price->set_source(source);
  };
  add("TPU v5e", podsim::COMMITMENT_ON_DEMAND, 1.2, "page A");
  add("TPU v5e", podsim::COMMITMENT_1_YEAR, 0.84, "page B");
  add("TPU v5p", podsim::COMMITMENT_3_YEAR, 1.89, "page C");
  m.set_commitment(podsim::COMMITMENT_1_YEAR);
  m.set_electricity_usd_per_kwh(0.08);
  m.set_chip_price_includes_electricity(true);
  m.set_pue(1.09);
  m.set_carbon_gco2e_per_kwh(125);
  m.set_source("grid and facility figures");
  const TempDir dir;
  const std::string bytes = m.SerializeAsString();
  const PricingSpec binary = load_pricing_file(dir.write("p.binpb", bytes));
  EXPECT_EQ(binary.commitment_line, 0);  // binary input has no positions
  PricingSpec expected = text;
  expected.source_file = (dir.path() / "p.binpb").string();
  expected.source_sha256 = binary.source_sha256;
  expected.commitment_line = expected.commitment_column = 0;
  EXPECT_EQ(binary, expected);
  EXPECT_EQ(parse_pricing_binary(bytes, expected.source_file), binary);
}

TEST(PricingLoaderTest, UnknownCommitmentInBinaryIsRejected) {
  podsim::Pricing m;
  m.set_name("p");
  m.set_date("2026-01-15");
  podsim::ChipPrice* price = m.add_prices();
  price->set_chip("c");
  price->set_source("s");
  price->set_commitment(static_cast<podsim::Commitment>(7));
  m.set_commitment(static_cast<podsim::Commitment>(9));
  try {
    parse_pricing_binary(m.SerializeAsString(), "p.binpb");
    FAIL() << "loaded";
  } catch (const InputError& e) {
    EXPECT_THAT(e.diagnostics(),
                ElementsAre(IsDiagnostic("prices[0].commitment", "unknown value 7"),
                            IsDiagnostic("commitment", "unknown value 9")));
    EXPECT_EQ(e.diagnostics()[0].file, "p.binpb");
  }
}

TEST(PricingLoaderTest, UnknownFieldIsRejectedWithItsPosition) {
  const std::vector<Diagnostic> e = pricing_errors(pricing_edited("pue:", "pue_ratio:"));
  ASSERT_FALSE(e.empty());
  EXPECT_EQ(e[0].file, "p.textproto");
  EXPECT_EQ(e[0].line, 14);
  EXPECT_THAT(e[0].message, HasSubstr("pue_ratio"));
}

TEST(PricingLoaderTest, PricesMustBeFiniteAndNonNegative) {
  const Diagnostic d =
      pricing_error(pricing_edited("usd_per_chip_hour: 0.84", "usd_per_chip_hour: -1"),
                    "prices[1].usd_per_chip_hour", "must be >= 0");
  EXPECT_EQ(d.line, 8);
  EXPECT_GT(d.column, 0);
  pricing_error(pricing_edited("usd_per_chip_hour: 1.2", "usd_per_chip_hour: inf"),
                "prices[0].usd_per_chip_hour", "finite");
  pricing_error(pricing_edited("usd_per_chip_hour: 1.2", "usd_per_chip_hour: nan"),
                "prices[0].usd_per_chip_hour", "finite");
  // A free chip is a price (an owned pod whose purchase is sunk).
  EXPECT_NO_THROW(
      parse_pricing_text(pricing_edited("usd_per_chip_hour: 1.2", "usd_per_chip_hour: 0"), "p"));
}

TEST(PricingLoaderTest, OnePricePerChipAndCommitment) {
  const Diagnostic d = pricing_error(
      pricing_edited("commitment: COMMITMENT_1_YEAR\n         usd_per_chip_hour: 0.84",
                     "usd_per_chip_hour: 0.84"),
      "prices[1]", "a second price for chip \"TPU v5e\" at COMMITMENT_ON_DEMAND");
  EXPECT_THAT(d.message, HasSubstr("prices[0]"));
  EXPECT_EQ(d.line, 7);
  // The same commitment for another chip is no clash.
  EXPECT_NO_THROW(parse_pricing_text(pricing_edited("COMMITMENT_3_YEAR\n", "COMMITMENT_1_YEAR\n"),
                                     "p.textproto"));
}

TEST(PricingLoaderTest, EveryPriceNeedsAChipAndASource) {
  pricing_error(pricing_edited(" source: \"page A\"", ""), "prices[0].source", "required");
  pricing_error(pricing_edited("chip: \"TPU v5p\"", ""), "prices[2].chip", "must not be empty");
}

TEST(PricingLoaderTest, AtLeastOnePrice) {
  const std::vector<Diagnostic> e =
      pricing_errors("name: \"p\" date: \"2026-01-15\" electricity_usd_per_kwh: 0.1 source: \"s\"");
  EXPECT_THAT(e, ElementsAre(IsDiagnostic("prices", "at least one price")));
}

TEST(PricingLoaderTest, DateIsRequiredAndIsoFormatted) {
  pricing_error(pricing_edited("date: \"2026-01-15\"\n", ""), "date", "required");
  for (const char* bad : {"2026-1-15", "15/01/2026", "2026-13-01", "2026-02-29", "2026-04-31",
                          "2026-01-00", "0000-01-01", "2026-01-15T00:00", "Jan 2026"}) {
    SCOPED_TRACE(bad);
    const Diagnostic d = pricing_error(pricing_edited("2026-01-15", bad), "date",
                                       "must be a calendar date written YYYY-MM-DD");
    EXPECT_EQ(d.line, 5);
  }
  for (const char* good : {"2024-02-29", "2000-02-29", "2026-12-31", "1999-01-01"}) {
    SCOPED_TRACE(good);
    EXPECT_EQ(parse_pricing_text(pricing_edited("2026-01-15", good), "p").date, good);
  }
  EXPECT_THAT(pricing_errors(pricing_edited("2026-01-15", "1900-02-29")),
              ElementsAre(IsDiagnostic("date", "YYYY-MM-DD")));
}

TEST(PricingLoaderTest, ElectricityAndCarbonAreFiniteAndNonNegative) {
  pricing_error(pricing_edited("electricity_usd_per_kwh: 0.08", "electricity_usd_per_kwh: -0.08"),
                "electricity_usd_per_kwh", "must be >= 0");
  pricing_error(pricing_edited("electricity_usd_per_kwh: 0.08", "electricity_usd_per_kwh: inf"),
                "electricity_usd_per_kwh", "finite");
  pricing_error(pricing_edited("carbon_gco2e_per_kwh: 125", "carbon_gco2e_per_kwh: -1"),
                "carbon_gco2e_per_kwh", "must be >= 0");
  pricing_error(pricing_edited("carbon_gco2e_per_kwh: 125", "carbon_gco2e_per_kwh: nan"),
                "carbon_gco2e_per_kwh", "finite");
}

TEST(PricingLoaderTest, PueIsZeroOrBetweenOneAndThree) {
  for (const char* bad : {"0.5", "0.99", "3.01", "-1", "inf"}) {
    SCOPED_TRACE(bad);
    const Diagnostic d = pricing_error(pricing_edited("pue: 1.09", std::string("pue: ") + bad),
                                       "pue", std::string(bad) == "inf" ? "finite" : "[1, 3]");
    EXPECT_EQ(d.line, 14);
  }
  EXPECT_EQ(parse_pricing_text(pricing_edited("pue: 1.09", "pue: 0"), "p").pue, 1.0);
  EXPECT_EQ(parse_pricing_text(pricing_edited("pue: 1.09", "pue: 1"), "p").pue, 1.0);
  EXPECT_EQ(parse_pricing_text(pricing_edited("pue: 1.09", "pue: 3"), "p").pue, 3.0);
}

TEST(PricingLoaderTest, NameIsRequiredAndTheFiguresNeedASource) {
  pricing_error(pricing_edited("name: \"p\"\n", ""), "name", "must not be empty");
  pricing_error(pricing_edited("source: \"grid and facility figures\"\n", ""), "source",
                "required when electricity_usd_per_kwh, pue or carbon_gco2e_per_kwh is set");
  // Without those figures there is nothing to cite.
  EXPECT_NO_THROW(parse_pricing_text(
      "name: \"p\" date: \"2026-01-15\" prices { chip: \"c\" usd_per_chip_hour: 1 source: \"s\" }",
      "p"));
}

TEST(PricingLoaderTest, EveryProblemIsReportedAtOnce) {
  const std::vector<Diagnostic> e = pricing_errors(
      "date: \"soon\" prices { chip: \"c\" usd_per_chip_hour: -1 } pue: 4 "
      "carbon_gco2e_per_kwh: -2");
  EXPECT_THAT(
      e, ElementsAre(IsDiagnostic("name", "must not be empty"), IsDiagnostic("date", "YYYY-MM-DD"),
                     IsDiagnostic("prices[0].usd_per_chip_hour", "must be >= 0"),
                     IsDiagnostic("prices[0].source", "required"), IsDiagnostic("pue", "[1, 3]"),
                     IsDiagnostic("carbon_gco2e_per_kwh", "must be >= 0"),
                     IsDiagnostic("source", "required")));
}

TEST(PricingLoaderTest, MissingFileNamesIt) {
  try {
    load_pricing_file("no/such/pricing.textproto");
    FAIL() << "loaded";
  } catch (const InputError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1U);
    EXPECT_EQ(e.diagnostics()[0].file, "no/such/pricing.textproto");
    EXPECT_THAT(e.diagnostics()[0].message, HasSubstr("cannot read"));
  }
}

TEST(PricingLoaderTest, PriceForTakesTheChosenCommitment) {
  PricingSpec p = parse_pricing_text(kValidPricing, "p.textproto");
  ASSERT_NE(price_for(p, "TPU v5e"), nullptr);
  EXPECT_EQ(price_for(p, "TPU v5e")->usd_per_chip_hour, 0.84);  // the 1-year price
  EXPECT_EQ(&require_price(p, "TPU v5e"), price_for(p, "TPU v5e"));
  EXPECT_EQ(price_for(p, "TPU v5p"), nullptr);  // only a 3-year price
  EXPECT_EQ(price_for(p, "TPU v4"), nullptr);   // no price at all
  p.commitment = Commitment::kOnDemand;
  EXPECT_EQ(price_for(p, "TPU v5e")->usd_per_chip_hour, 1.2);
  p.commitment = Commitment::kThreeYear;
  EXPECT_EQ(price_for(p, "TPU v5p")->usd_per_chip_hour, 1.89);
  EXPECT_EQ(price_for(p, "TPU v5e"), nullptr);
}

TEST(PricingLoaderTest, NoPriceAtTheCommitmentNamesTheFileTheFieldAndWhatThereIs) {
  const PricingSpec p = parse_pricing_text(kValidPricing, "p.textproto");
  try {
    require_price(p, "TPU v5p");
    FAIL() << "priced";
  } catch (const InputError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1U);
    const Diagnostic& d = e.diagnostics()[0];
    EXPECT_EQ(d.file, "p.textproto");
    EXPECT_EQ(d.field, "commitment");
    EXPECT_EQ(d.line, 11);
    EXPECT_EQ(d.column, 1);
    EXPECT_THAT(d.message, AllOf(HasSubstr("\"TPU v5p\""), HasSubstr("at COMMITMENT_1_YEAR"),
                                 HasSubstr("prices it at COMMITMENT_3_YEAR")));
  }
  try {
    require_price(p, "TPU v4");
    FAIL() << "priced";
  } catch (const InputError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1U);
    const Diagnostic& d = e.diagnostics()[0];
    EXPECT_EQ(d.file, "p.textproto");
    EXPECT_EQ(d.field, "prices");
    EXPECT_THAT(d.message, AllOf(HasSubstr("\"TPU v4\" at any commitment"),
                                 HasSubstr("\"TPU v5e\", \"TPU v5p\""),
                                 Not(HasSubstr("\"TPU v5e\", \"TPU v5e\""))));
  }
}

TEST(PricingLoaderTest, SniffedAsAPricingFile) {
  const TempDir dir;
  EXPECT_EQ(sniff_file_kind(dir.write("p.textproto", kValidPricing)), FileKind::kPricing);
  // Without the header too: `date` and `prices` are no other message's.
  EXPECT_EQ(sniff_file_kind(dir.write(
                "q.txt", "name: \"p\" date: \"2026-01-15\" prices { chip: \"c\" source: \"s\" }")),
            FileKind::kPricing);
}

}  // namespace
}  // namespace podsim::config
