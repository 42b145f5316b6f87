// The microbenchmark measurements `podsim calibrate` fits a profile to: one
// CSV row per measurement (docs/calibration.md, "The measurements CSV").
//
// A row is one operation timed on real hardware: a matmul on one chip, an
// HBM copy on one chip, or one collective over some dimensions of a slice.
// The loader checks every cell and names the file, the line, the column and
// the problem; nothing is guessed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "config/compute_ops.h"
#include "config/workload_spec.h"

namespace podsim::calibrate {

enum class RowKind : uint8_t { kMatmul, kCollective, kHbmCopy };

struct Row {
  RowKind kind = RowKind::kMatmul;
  std::string chip;
  // Collective: the slice's dimension sizes (x, y, z in order) and which
  // dimensions wrap around; empty for the others.
  std::vector<uint32_t> slice;
  std::vector<bool> wraparound;
  // Matmul: the product, activations and weights in `dtype`.
  config::Matmul matmul;
  // Collective: the kind, the bytes (workload.proto's convention) and the
  // slice's dimensions it runs over, by index.
  config::CollectiveKind collective = config::CollectiveKind::kAllGather;
  uint64_t bytes = 0;  // collective; or the bytes an HBM copy reads (and writes)
  std::vector<uint32_t> axes;
  double measured_us = 0;
  // Rows with the same non-empty harness share a fitted fixed offset: what
  // the way they were timed adds (host dispatch around a timed call).
  std::string harness;
  std::string source;
  int line = 0;  // in the CSV, 1-based

  // "matmul 8192x8192x8192 bf16", "all_gather 33554432 B over y of 8x4",
  // "hbm_copy 2097152 B": what a report calls the row.
  std::string describe() const;
};

struct RowSet {
  std::string file;    // as the user named it
  std::string sha256;  // hex SHA-256 of its bytes
  std::vector<Row> rows;
};

// The columns, in the order `podsim calibrate --emit-benchmark` writes them.
inline constexpr std::string_view kColumns =
    "kind,chip,slice,wraparound,dtype,m,k,n,batch,collective,bytes,axes,measured_us,harness,"
    "source";

// Reads and checks a measurements CSV. Throws config::InputError with one
// diagnostic per bad cell (file, line, column name, problem), or for a file
// without rows.
RowSet load_rows(const std::filesystem::path& path);
// The same from text; `source` names it in messages.
RowSet parse_rows(std::string_view text, const std::string& source);

std::string_view to_string(RowKind kind);
// "all_gather", "reduce_scatter", "all_reduce", "all_to_all".
std::string_view collective_name(config::CollectiveKind kind);
// "bf16", "int8", "fp8".
std::string_view dtype_name(config::DType dtype);

}  // namespace podsim::calibrate
