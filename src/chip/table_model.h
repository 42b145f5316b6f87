// The table compute model (--compute table --op-table FILE): measured op
// times, interpolated, with the roofline outside the table.
//
// An op's key (table_key.h) is looked up among the rows of its kind and
// dtypes:
//  - exact: a row with the same key gives its time as measured;
//  - interpolated: otherwise, rows that differ from the key in exactly one
//    size dimension (config::OpTableDim::interpolates) form a curve along
//    that dimension. Where the nearest rows below and above the key's value
//    bracket its size (s0 < s < s1, table_size()), the time is interpolated
//    log-log: log t = log t0 + (log s - log s0) / (log s1 - log s0) x
//    (log t1 - log t0). When several dimensions bracket the key, the
//    tightest bracket (smallest s1 / s0) wins, then the earlier dimension.
//  - fallback: no exact row and no bracket (outside the table, or a shape
//    that differs in two dimensions from every row): the roofline's time.
//    OpTiming::first_fallback is set the first time each op kind falls back
//    in this model, so the caller can say so once per kind; fallbacks()
//    lists the kinds.
// Measured times already hold every overhead and inefficiency, so neither
// efficiency factors nor op_overhead are applied to them (the fallback
// roofline applies them as usual). compute_time, memory_time and bound are
// the roofline's estimates, for breakdowns.
//
// Cost: O(rows of the op's kind x dimensions) per op, allocation-free. The
// "already fell back" set is an atomic bit mask, so time() stays const and
// safe to call from several threads.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>
#include <vector>

#include "chip/chip_rates.h"
#include "chip/compute_model.h"
#include "chip/roofline.h"
#include "chip/table_key.h"
#include "config/op_table_spec.h"

namespace podsim::chip {

class TableModel final : public ComputeModel {
 public:
  TableModel(const config::ChipSpec& chip, const Efficiency& efficiency,
             const config::OpTableSpec& table);

  OpTiming time(const Op& op) const override;
  std::string_view name() const override { return "table"; }

  // The op kinds that have fallen back to the roofline so far, in kind order.
  std::vector<OpKind> fallbacks() const;

 private:
  struct Row {
    TableDims dims{};
    DType dtype = DType::kBf16;
    DType second_dtype = DType::kBf16;
    sim::Time time;
    double log_size = 0;
    double log_time_ps = 0;
  };
  struct Lookup {
    OpTiming::Source source = OpTiming::Source::kTableFallback;
    sim::Time time;
  };

  Lookup lookup(const TableKey& key) const;

  ChipRates rates_;
  RooflineModel roofline_;
  std::array<std::vector<Row>, config::kOpTableKindCount> rows_;  // by kind
  mutable std::atomic<uint32_t> fallback_kinds_{0};               // bit per OpKind
};

}  // namespace podsim::chip
