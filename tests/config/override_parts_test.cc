// The pieces behind --set: SHA-256 against the FIPS 180-4 examples, path
// parsing, the list of overridable paths, edit distance and value lists.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/internal/override_paths.h"
#include "config/internal/override_value.h"
#include "config/internal/sha256.h"
#include "test_support.h"

namespace podsim::config::internal {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Not;

// FIPS 180-4 examples (NIST CSRC "Examples with intermediate values", SHA-256).
TEST(Sha256, FipsVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, PaddingBoundaries) {
  // 55 bytes fit the length in one final block, 56 need a second; 64 is a
  // whole block. Distinct, and each is stable.
  const std::string h55 = sha256_hex(std::string(55, 'a'));
  const std::string h56 = sha256_hex(std::string(56, 'a'));
  const std::string h64 = sha256_hex(std::string(64, 'a'));
  EXPECT_EQ(h55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(h56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(h64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST(FieldPathSyntax, ParsesSegmentsAndIndexes) {
  std::string error;
  const auto p = parse_field_path("torus.dims[12].link_bandwidth_gbps", error);
  ASSERT_TRUE(p.has_value()) << error;
  ASSERT_EQ(p->segments().size(), 3u);
  EXPECT_EQ(p->segments()[1].name, "dims");
  EXPECT_EQ(p->segments()[1].index, 12);
  EXPECT_EQ(p->segments()[2].index, -1);
  EXPECT_EQ(p->to_string(), "torus.dims[12].link_bandwidth_gbps");
  for (const char* bad : {"", ".a", "a.", "a[", "a[]", "a[-1]", "a[1]b", "a[99999999999]", "a b"})
    EXPECT_FALSE(parse_field_path(bad, error).has_value()) << bad;
}

TEST(OverridablePaths, LeavesWithTheIndexesTheMessageHas) {
  podsim::Topology t = testing::valid_topology();
  auto* link = t.add_failed_links();
  link->add_coords(1);
  link->add_coords(2);
  const std::vector<std::string> paths = overridable_paths(t);
  for (const char* p :
       {"name", "chip.peak.bf16_tflops", "chip.matrix_units.rows",
        "torus.dims[0].link_bandwidth_gbps", "torus.dims[2].size", "dcn.latency_ns",
        "failed_links[0].coords", "failed_links[0].coords[1]", "calibration.source"}) {
    EXPECT_THAT(paths, Contains(std::string(p)));
  }
  for (const char* p : {"chip", "torus.dims[3].size", "torus.twists[0].dim",
                        "failed_links[0].coords[2]", "torus.dims"}) {
    EXPECT_THAT(paths, Not(Contains(std::string(p))));
  }
}

TEST(EditDistance, Levenshtein) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("rows", "row"), 1u);
  EXPECT_EQ(edit_distance("flaw", "lawn"), 2u);
  EXPECT_THAT(nearest("rwos", {"count", "rows", "columns", "row"}, 2), ElementsAre("rows", "row"));
  EXPECT_THAT(nearest("x", {"a", "b"}, 5), ElementsAre("a", "b"));  // ties in order
}

TEST(ValueLists, Split) {
  std::string error;
  EXPECT_THAT(*split_list("[a, \"b, c\" ,d]", error), ElementsAre("a", "\"b, c\"", "d"));
  EXPECT_TRUE(split_list("[]", error)->empty());
  EXPECT_TRUE(split_list("[  ]", error)->empty());
  EXPECT_THAT(*split_list("['x]']", error), ElementsAre("'x]'"));
  for (const char* bad : {"a", "[a", "[a,]", "[,a]", "[\"a\" b]", "[\"a]"})
    EXPECT_FALSE(split_list(bad, error).has_value()) << bad;
}

}  // namespace
}  // namespace podsim::config::internal
