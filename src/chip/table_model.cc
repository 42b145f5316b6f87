#include "chip/table_model.h"

#include <cmath>
#include <limits>

namespace podsim::chip {
namespace {

static_assert(config::kOpTableKindCount <= 32, "fallback_kinds_ holds one bit per kind");

uint32_t bit_of(OpKind kind) {
  return uint32_t{1} << static_cast<unsigned>(kind);
}

}  // namespace

TableModel::TableModel(const config::ChipSpec& chip, const Efficiency& efficiency,
                       const config::OpTableSpec& table)
    : rates_(chip, efficiency), roofline_(chip, efficiency) {
  for (const config::OpTableEntry& e : table.entries) {
    Row row;
    row.dims = e.dims;
    row.dtype = e.dtype;
    row.second_dtype = e.second_dtype;
    row.time = e.time;
    row.log_size = std::log(table_size(e.kind, e.dims));
    row.log_time_ps = std::log(static_cast<double>(e.time.count_ps()));
    rows_[static_cast<size_t>(e.kind)].push_back(row);
  }
}

TableModel::Lookup TableModel::lookup(const TableKey& key) const {
  const std::span<const config::OpTableDim> schema = config::op_table_dims(key.kind);
  const double log_size = std::log(table_size(key.kind, key.dims));
  // Nearest rows below and above the key along each dimension.
  std::array<const Row*, config::kMaxOpTableDims> below{};
  std::array<const Row*, config::kMaxOpTableDims> above{};
  for (const Row& row : rows_[static_cast<size_t>(key.kind)]) {
    if (row.dtype != key.dtype || row.second_dtype != key.second_dtype)
      continue;
    size_t differing = 0;
    size_t dim = 0;
    for (size_t d = 0; d < schema.size(); ++d) {
      if (row.dims[d] != key.dims[d]) {
        ++differing;
        dim = d;
      }
    }
    if (differing == 0)
      return {OpTiming::Source::kTableExact, row.time};
    if (differing != 1 || !schema[dim].interpolates)
      continue;
    if (row.dims[dim] < key.dims[dim]) {
      if (below[dim] == nullptr || below[dim]->dims[dim] < row.dims[dim])
        below[dim] = &row;
    } else if (above[dim] == nullptr || row.dims[dim] < above[dim]->dims[dim]) {
      above[dim] = &row;
    }
  }
  const Row* lo = nullptr;
  const Row* hi = nullptr;
  double best_span = std::numeric_limits<double>::infinity();
  for (size_t d = 0; d < schema.size(); ++d) {
    if (below[d] == nullptr || above[d] == nullptr)
      continue;
    const double span = above[d]->log_size - below[d]->log_size;
    if (below[d]->log_size < log_size && log_size < above[d]->log_size && span < best_span) {
      best_span = span;
      lo = below[d];
      hi = above[d];
    }
  }
  if (lo == nullptr)
    return {};
  const double f = (log_size - lo->log_size) / best_span;
  const double ps = std::exp(lo->log_time_ps + f * (hi->log_time_ps - lo->log_time_ps));
  return {OpTiming::Source::kTableInterpolated, sim::Time::ps(std::llround(ps))};
}

OpTiming TableModel::time(const Op& op) const {
  const TableKey key = table_key(op);
  const Lookup found = lookup(key);
  OpTiming estimate = roofline_.time(op);
  if (found.source == OpTiming::Source::kTableFallback) {
    estimate.source = OpTiming::Source::kTableFallback;
    const uint32_t bit = bit_of(key.kind);
    estimate.first_fallback = (fallback_kinds_.fetch_or(bit, std::memory_order_relaxed) & bit) == 0;
    return estimate;
  }
  OpTiming t = assemble_timing(work(op), rates_, estimate.compute_time, estimate.memory_time,
                               found.time, sim::Time::zero(), UnitParts{});
  // A measured time has no parts: the roofline's, in its proportions.
  t.units = scale_units(estimate.units, found.time);
  t.source = found.source;
  return t;
}

std::vector<OpKind> TableModel::fallbacks() const {
  const uint32_t mask = fallback_kinds_.load(std::memory_order_relaxed);
  std::vector<OpKind> out;
  for (size_t k = 0; k < config::kOpTableKindCount; ++k) {
    if (mask & (uint32_t{1} << k))
      out.push_back(static_cast<OpKind>(k));
  }
  return out;
}

}  // namespace podsim::chip
