// Parse speed on a generated megabyte module shaped like the real LLaMA
// dump (long metadata on every line). The bound is loose (sanitizer builds
// run it too); docs/hlo.md gives the measured figure.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "hlo/parser.h"

namespace podsim::hlo {
namespace {

// About a megabyte of instructions, each with the real dump's long
// metadata or, `short_lines`, none (many more, smaller instructions).
std::string megabyte_module(bool short_lines, int& instructions) {
  std::string text = "HloModule big, num_partitions=4\n\n";
  text += "%add (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n";
  text += "  %b = f32[] parameter(1)\n  ROOT %s = f32[] add(%a, %b)\n}\n\n";
  text += "ENTRY %main (p: f32[2,2048,4096]) -> f32[2,2048,4096] {\n";
  text += "  %v.0 = f32[2,2048,4096]{2,1,0} parameter(0)\n";
  instructions = 1;
  while (text.size() < (1u << 20)) {
    const std::string prev = "%v." + std::to_string(instructions - 1);
    text += "  %v." + std::to_string(instructions) + " = f32[2,2048,4096]{2,1,0} ";
    text += instructions % 7 == 0
                ? "all-reduce(" + prev + "), channel_id=" + std::to_string(instructions) +
                      ", replica_groups=[1,4]<=[4], use_global_device_ids=true, to_apply=%add"
                : "multiply(" + prev + ", " + prev + ")";
    if (short_lines) {
      text += '\n';
      ++instructions;
      continue;
    }
    text +=
        ", metadata={op_name=\"jit(train_step)/transpose(jvp(TransformerLinenPure.apply))/"
        "decoder/while/body/layers/mul\" source_file=\"/opt/flax/flax/core/axes_scan.py\" "
        "source_line=156 source_end_line=156 source_column=29 source_end_column=29}\n";
    ++instructions;
  }
  text += "}\n";
  return text;
}

void parse_and_time(bool short_lines) {
  int instructions = 0;
  std::string text = megabyte_module(short_lines, instructions);
  const size_t bytes = text.size();
  const auto start = std::chrono::steady_clock::now();
  const Module m = parse_module(std::move(text), "big.hlo");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(m.entry_computation().instructions.size(), static_cast<size_t>(instructions));
  ::testing::Test::RecordProperty("bytes", std::to_string(bytes));
  ::testing::Test::RecordProperty("seconds", std::to_string(seconds));
  std::printf("parsed %zu bytes, %d instructions in %.4f s\n", bytes, instructions, seconds);
  EXPECT_LT(seconds, 2.0);
}

TEST(HloParseSpeed, MegabyteOfLongInstructions) {
  parse_and_time(false);
}

TEST(HloParseSpeed, MegabyteOfShortInstructions) {
  parse_and_time(true);
}

}  // namespace
}  // namespace podsim::hlo
