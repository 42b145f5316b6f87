#include "calibrate/benchmark_plan.h"

#include <sstream>
#include <stdexcept>

#include "calibrate/benchmark_template.h"
#include "report/format.h"

namespace podsim::calibrate {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr const char* kPlanDims[] = {"x", "y", "z"};

std::string py_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string slice_text(const std::vector<uint32_t>& slice) {
  std::string s;
  for (size_t i = 0; i < slice.size(); ++i) {
    if (i > 0)
      s += 'x';
    s += std::to_string(slice[i]);
  }
  return s;
}

std::string names(const std::vector<uint32_t>& dims, const std::vector<bool>* only_true = nullptr) {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (only_true != nullptr && !(*only_true)[i])
      continue;
    if (!s.empty())
      s += ' ';
    s += kPlanDims[only_true ? i : dims[i]];
  }
  return s;
}

}  // namespace

RowSet benchmark_plan(const config::PodSpec& topology) {
  RowSet plan;
  plan.file = "<plan>";
  int line = 2;
  const auto add = [&](Row row) {
    row.chip = topology.chip.name;
    row.line = line++;
    plan.rows.push_back(std::move(row));
  };
  for (const uint64_t n : {512, 1024, 2048, 4096, 8192}) {
    Row r;
    r.kind = RowKind::kMatmul;
    r.matmul.m = r.matmul.k = r.matmul.n = n;
    add(r);
  }
  for (const uint64_t m : {8, 32, 128, 512, 2048}) {
    Row r;
    r.kind = RowKind::kMatmul;
    r.matmul.m = m;
    r.matmul.k = r.matmul.n = 8192;
    add(r);
  }
  for (const uint64_t mib : {1, 4, 16, 64, 256, 1024}) {
    Row r;
    r.kind = RowKind::kHbmCopy;
    r.bytes = mib * kMiB;
    add(r);
  }
  std::vector<uint32_t> slice;
  std::vector<bool> wraps;
  for (const auto& d : topology.torus.dims) {
    slice.push_back(d.size);
    wraps.push_back(d.wraparound);
  }
  if (slice.size() > 3)
    throw std::invalid_argument("benchmark plans cover slices of at most 3 dimensions");
  const uint64_t chips = topology.torus.chip_count();
  std::vector<uint32_t> all_dims;
  for (uint32_t d = 0; d < slice.size(); ++d) {
    if (slice[d] < 2)
      continue;
    all_dims.push_back(d);
    for (const uint64_t per_chip : {uint64_t{16} << 10, kMiB, 16 * kMiB, 128 * kMiB}) {
      Row r;
      r.kind = RowKind::kCollective;
      r.slice = slice;
      r.wraparound = wraps;
      r.collective = config::CollectiveKind::kAllGather;
      r.bytes = per_chip * slice[d];
      r.axes = {d};
      add(r);
    }
  }
  if (!all_dims.empty()) {
    for (const uint64_t total : {kMiB, 64 * kMiB}) {
      Row r;
      r.kind = RowKind::kCollective;
      r.slice = slice;
      r.wraparound = wraps;
      r.collective = config::CollectiveKind::kAllReduce;
      r.bytes = total / chips * chips;  // whole elements per chip
      r.axes = all_dims;
      add(r);
    }
  }
  return plan;
}

std::string benchmark_script(const RowSet& plan, const Predictor& predictor,
                             const config::PodSpec& topology) {
  const std::vector<double> predicted = predictor.predict(topology.calibration);
  std::ostringstream rows;
  rows << "[\n";
  for (size_t i = 0; i < plan.rows.size(); ++i) {
    const Row& r = plan.rows[i];
    const bool mm = r.kind == RowKind::kMatmul;
    const bool coll = r.kind == RowKind::kCollective;
    rows << "    {\"kind\": " << py_string(std::string(to_string(r.kind)))
         << ", \"chip\": " << py_string(r.chip)
         << ", \"slice\": " << py_string(coll ? slice_text(r.slice) : "")
         << ", \"wraparound\": " << py_string(coll ? names(r.slice, &r.wraparound) : "")
         << ", \"dtype\": " << py_string(mm ? std::string(dtype_name(r.matmul.act)) : "")
         << ", \"m\": " << (mm ? r.matmul.m : 0) << ", \"k\": " << (mm ? r.matmul.k : 0)
         << ", \"n\": " << (mm ? r.matmul.n : 0) << ", \"batch\": " << (mm ? r.matmul.batch : 0)
         << ", \"collective\": "
         << py_string(coll ? std::string(collective_name(r.collective)) : "")
         << ", \"bytes\": " << (mm ? 0 : r.bytes)
         << ", \"axes\": " << py_string(coll ? names(r.axes) : "")
         << ", \"predicted_us\": " << report::format_double(predicted[i])
         << ", \"source\": \"\"},\n";
  }
  rows << "]";
  std::string text(benchmark_template_text());
  const auto replace = [&](const std::string& token, const std::string& with) {
    const size_t at = text.find(token);
    if (at == std::string::npos)
      throw std::logic_error("the benchmark template lacks " + token);
    text.replace(at, token.size(), with);
  };
  replace("__PODSIM_PLAN__", rows.str());
  replace("__PODSIM_TOPOLOGY__", py_string(topology.source_file));
  return text;
}

}  // namespace podsim::calibrate
