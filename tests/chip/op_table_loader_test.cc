// The operation-table CSV loader (src/config/op_table_loader.h): what a good
// file gives, every rule's diagnostic with its line, column and field, and a
// file loaded from disk into the table model.
#include "config/op_table_loader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "chip/table_model.h"

namespace podsim::config {
namespace {

// The one diagnostic a bad table gives, as "line:column: field: message".
std::string only_problem(std::string_view text) {
  try {
    parse_op_table(text, "t.csv");
  } catch (const InputError& e) {
    EXPECT_EQ(e.diagnostics().size(), 1u) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return "";
}

constexpr std::string_view kHeader = "kind,shape,dtype,time_us\n";

std::string table(std::string_view rows) {
  return std::string(kHeader) + std::string(rows);
}

TEST(OpTableLoader, ParsesRowsWithDefaultsCommentsAndBlanks) {
  const OpTableSpec spec = parse_op_table(
      "# measured on one v5e chip\n"
      "\n"
      " kind , shape , dtype , time_us \r\n"
      "matmul,m=8;k=8192;n=8192,bf16,172.5\n"
      "  # a comment between rows\n"
      "matmul, batch=4 ; n=4096 ; k=4096 ; m=128 ,bf16/int8,60\n"
      "attention_decode,q_len=1;kv_len=4096;heads=32;kv_heads=8;head_dim=128,bf16/INT8,95\n"
      "elementwise,bytes=4096;flops_per_element=0,,0.5\n"
      "copy,bytes=1048576,,2.1",
      "t.csv");
  EXPECT_EQ(spec.source_file, "t.csv");
  ASSERT_EQ(spec.entries.size(), 5u);

  const OpTableEntry& a = spec.entries[0];
  EXPECT_EQ(a.kind, OpTableKind::kMatmul);
  EXPECT_EQ(a.dims, (std::array<uint64_t, kMaxOpTableDims>{1, 8, 8192, 8192}));  // batch = 1
  EXPECT_EQ(a.dtype, DType::kBf16);
  EXPECT_EQ(a.second_dtype, DType::kBf16);
  EXPECT_EQ(a.time, sim::Time::ns(172'500));
  EXPECT_EQ(a.line, 4);

  const OpTableEntry& b = spec.entries[1];
  EXPECT_EQ(b.dims, (std::array<uint64_t, kMaxOpTableDims>{4, 128, 4096, 4096}));
  EXPECT_EQ(b.second_dtype, DType::kInt8);

  const OpTableEntry& c = spec.entries[2];
  EXPECT_EQ(c.kind, OpTableKind::kAttentionDecode);
  EXPECT_EQ(c.dims, (std::array<uint64_t, kMaxOpTableDims>{1, 1, 4096, 32, 8, 128, 1}));
  EXPECT_EQ(c.second_dtype, DType::kInt8);

  EXPECT_EQ(spec.entries[3].dims[1], 0u);  // flops_per_element may be 0
  EXPECT_EQ(spec.entries[4].kind, OpTableKind::kCopy);
  EXPECT_EQ(spec.entries[4].line, 9);
}

TEST(OpTableLoader, HeaderAndFileShape) {
  EXPECT_EQ(only_problem(""), "t.csv: empty: expected the header line kind,shape,dtype,time_us");
  EXPECT_EQ(only_problem("# only a comment\n"),
            "t.csv: empty: expected the header line kind,shape,dtype,time_us");
  EXPECT_EQ(only_problem(kHeader), "t.csv: no rows: the table times no operation");
  EXPECT_EQ(only_problem("matmul,m=1;k=1;n=1,bf16,1\n"),
            "t.csv:1:1: expected the header line kind,shape,dtype,time_us, got "
            "\"matmul,m=1;k=1;n=1,bf16,1\"");
  EXPECT_EQ(only_problem(table("copy,bytes=1,,1,extra\n")),
            "t.csv:2:1: expected 4 cells (kind,shape,dtype,time_us), got 5");
}

TEST(OpTableLoader, KindAndShapeRules) {
  EXPECT_EQ(only_problem(table("gemm,m=1,bf16,1\n")),
            "t.csv:2:1: kind: unknown kind \"gemm\"; expected one of matmul, attention_prefill, "
            "attention_decode, elementwise, rms_norm, layer_norm, reduction, embedding, copy");
  EXPECT_EQ(only_problem(table("matmul,m=1;k=1;x=1;n=1,bf16,1\n")),
            "t.csv:2:16: shape: unknown dimension \"x\" for matmul; expected batch, m, k, n");
  EXPECT_EQ(only_problem(table("matmul,m=1;k=1;m=2;n=1,bf16,1\n")),
            "t.csv:2:16: shape: m given twice");
  EXPECT_EQ(only_problem(table("matmul,m=1;k=1,bf16,1\n")),
            "t.csv:2:8: shape: missing n (matmul needs batch, m, k, n)");
  EXPECT_EQ(only_problem(table("matmul,m=0;k=1;n=1,bf16,1\n")),
            "t.csv:2:10: shape: m must be an integer >= 1, got \"0\"");
  EXPECT_EQ(only_problem(table("matmul,m=1.5;k=1;n=1,bf16,1\n")),
            "t.csv:2:10: shape: m must be an integer >= 1, got \"1.5\"");
  EXPECT_EQ(only_problem(table("matmul,m=1;k;n=1,bf16,1\n")),
            "t.csv:2:12: shape: expected name=value, got \"k\" (names for matmul: batch, m, k, "
            "n)");
  EXPECT_EQ(only_problem(table("attention_prefill,q_len=8;kv_len=8;heads=8;kv_heads=8;"
                               "head_dim=64;causal=2,bf16,1\n")),
            "t.csv:2:74: shape: causal must be 0 or 1, got \"2\"");
}

TEST(OpTableLoader, EveryMissingDimensionIsNamed) {
  try {
    parse_op_table(table("matmul,m=1,bf16,1\n"), "t.csv");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "t.csv:2:8: shape: missing k (matmul needs batch, m, k, n)\n"
              "t.csv:2:8: shape: missing n (matmul needs batch, m, k, n)");
  }
}

TEST(OpTableLoader, AttentionRules) {
  EXPECT_EQ(only_problem(table("attention_decode,q_len=1;kv_len=8;heads=6;kv_heads=4;"
                               "head_dim=64,bf16,1\n")),
            "t.csv:2:18: shape: heads (6) must be a multiple of kv_heads (4)");
  EXPECT_EQ(only_problem(table("attention_prefill,q_len=16;kv_len=8;heads=4;kv_heads=4;"
                               "head_dim=64,bf16,1\n")),
            "t.csv:2:19: shape: causal attention needs q_len <= kv_len (the queries are the last "
            "q_len of the kv_len positions), got 16 > 8");
  // Without causal masking the queries may outnumber the keys.
  EXPECT_NO_THROW(parse_op_table(table("attention_prefill,q_len=16;kv_len=8;heads=4;kv_heads=4;"
                                       "head_dim=64;causal=0,bf16,1\n"),
                                 "t.csv"));
}

TEST(OpTableLoader, DtypeRules) {
  EXPECT_EQ(only_problem(table("rms_norm,rows=1;width=8,bf17,1\n")),
            "t.csv:2:25: dtype: unknown dtype \"bf17\"; expected bf16, fp32, fp8, int8 or int4");
  EXPECT_EQ(only_problem(table("rms_norm,rows=1;width=8,,1\n")),
            "t.csv:2:25: dtype: missing dtype; expected bf16, fp32, fp8, int8 or int4");
  EXPECT_EQ(only_problem(table("rms_norm,rows=1;width=8,bf16/int8,1\n")),
            "t.csv:2:25: dtype: rms_norm takes one dtype, got \"bf16/int8\"");
  EXPECT_EQ(only_problem(table("matmul,m=1;k=1;n=1,bf16/int8/int4,1\n")),
            "t.csv:2:20: dtype: expected DTYPE or ACTIVATIONS/OTHER, got \"bf16/int8/int4\"");
  EXPECT_EQ(only_problem(table("copy,bytes=8,bf16,1\n")),
            "t.csv:2:14: dtype: copy has no dtype (its sizes are bytes); leave the cell empty, "
            "got \"bf16\"");
}

TEST(OpTableLoader, TimeRules) {
  for (std::string_view bad : {"0", "-3", "abc", "", "-1e400", "nan", "1e-9", "1e-400"}) {
    SCOPED_TRACE(bad);
    const std::string problem = only_problem(table("copy,bytes=8,," + std::string(bad) + "\n"));
    EXPECT_NE(problem.find("t.csv:2:"), std::string::npos) << problem;
    EXPECT_NE(problem.find(": time_us: must be a time in microseconds, > 0 and at least 1 ps"),
              std::string::npos)
        << problem;
  }
  EXPECT_EQ(parse_op_table(table("copy,bytes=8,,1e-6\n"), "t.csv").entries[0].time,
            sim::Time::ps(1));
  // Too long is not "too small" (issue 12 item 9: 1e300 was refused as
  // "> 0 and at least 1 ps").
  for (std::string_view big : {"1e300", "1e400", "9.3e12", "inf"}) {
    SCOPED_TRACE(big);
    const std::string problem = only_problem(table("copy,bytes=8,," + std::string(big) + "\n"));
    EXPECT_NE(problem.find(": time_us: is too long: at most 9.2e12 us"), std::string::npos)
        << problem;
  }
  EXPECT_EQ(parse_op_table(table("copy,bytes=8,,9e12\n"), "t.csv").entries[0].time,
            sim::Time::s(9'000'000));
}

// Found by op_table_fuzzer: a row whose sizes each pass but multiply past
// 64 bits loaded, then the table model's constructor overflowed (exit 3).
TEST(OpTableLoader, SizesWhoseProductOverflowsAreRefused) {
  const std::string problem =
      only_problem(table("attention_prefill,batch=2;q_len=512;kv_len=18446744073709551614;heads=32;"
                         "kv_heads=8;head_dim=128;causal=0,bf16,80\n"));
  EXPECT_NE(problem.find("t.csv:2:"), std::string::npos) << problem;
  EXPECT_NE(problem.find("shape: the sizes multiply to more than 2^56"), std::string::npos)
      << problem;
  EXPECT_NE(only_problem(table("matmul,m=16777216;k=16777216;n=16777216,bf16,1\n"))
                .find("multiply to more than 2^56"),
            std::string::npos);
  EXPECT_NO_THROW(parse_op_table(table("matmul,m=65536;k=65536;n=8192,bf16,1\n"), "t.csv"));
}

TEST(OpTableLoader, EveryProblemIsReportedAndDuplicatesNameTheFirstRow) {
  try {
    parse_op_table(table("copy,bytes=8,,1\n"
                         "copy,bytes=0,,1\n"
                         "matmul,k=1;n=1;m=1;batch=1,bf16,2\n"
                         "matmul,m=1;k=1;n=1,bf16,3\n"
                         "copy,bytes=8,,4\n"),
                   "t.csv");
    FAIL() << "no error";
  } catch (const InputError& e) {
    // The zero-byte copy first; duplicates once every row parsed.
    ASSERT_EQ(e.diagnostics().size(), 1u) << e.what();
    EXPECT_EQ(e.diagnostics()[0].line, 3);
  }
  try {
    parse_op_table(table("copy,bytes=8,,1\n"
                         "matmul,k=1;n=1;m=1;batch=1,bf16,2\n"
                         "matmul,m=1;k=1;n=1,bf16,3\n"
                         "copy,bytes=8,,4\n"
                         "copy,bytes=8,,5\n"),
                   "t.csv");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "t.csv:4:1: shape: same kind, shape and dtype as line 3\n"
              "t.csv:5:1: shape: same kind, shape and dtype as line 2\n"
              "t.csv:6:1: shape: same kind, shape and dtype as line 2");
  }
}

TEST(OpTableLoader, LoadsAFileIntoTheTableModel) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "podsim_op_table_loader_test.csv";
  {
    std::ofstream out(path);
    out << kHeader << "matmul,m=8;k=8192;n=8192,bf16,150\n"
        << "matmul,m=32;k=8192;n=8192,bf16,180\n";
  }
  const OpTableSpec spec = load_op_table_file(path);
  std::filesystem::remove(path);
  EXPECT_EQ(spec.source_file, path.string());

  ChipSpec chip;
  chip.name = "v5e";
  chip.peak_bf16_flops = 1.97e14;
  chip.hbm_bandwidth = sim::Bandwidth::bytes_per_s(819'000'000'000);
  chip.mxu_count = 4;
  chip.mxu_rows = chip.mxu_columns = 128;
  chip.mxu_clock_hz = 1.5e9;
  const chip::TableModel model(chip, {}, spec);
  EXPECT_EQ(model.time(chip::Matmul{1, 8, 8192, 8192}).time, sim::Time::us(150));
  EXPECT_NEAR(model.time(chip::Matmul{1, 16, 8192, 8192}).time.to_us(), std::sqrt(150.0 * 180),
              1e-6);

  EXPECT_THROW(load_op_table_file(path), InputError);  // gone now
}

}  // namespace
}  // namespace podsim::config
