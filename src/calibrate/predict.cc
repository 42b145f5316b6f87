#include "calibrate/predict.h"

#include <stdexcept>

#include "chip/compute_model.h"
#include "config/diagnostics.h"
#include "engine/op_list.h"
#include "topo/pod.h"

namespace podsim::calibrate {
namespace {

constexpr const char* kRowAxes[] = {"x", "y", "z"};

config::InputError row_error(const RowSet& set, const Row& row, const std::string& field,
                             const std::string& message) {
  return config::InputError(config::Diagnostic{set.file, field, row.line, 0, message});
}

}  // namespace

Predictor::Predictor(config::PodSpec topology, const RowSet& rows, net::Model network)
    : topology_(std::move(topology)), rows_(rows), network_(network) {
  std::vector<config::Diagnostic> issues;
  for (const Row& row : rows_.rows) {
    if (row.chip != topology_.chip.name) {
      issues.push_back({rows_.file, "chip", row.line, 0,
                        "'" + row.chip + "' is not the topology's chip '" + topology_.chip.name +
                            "' (" + topology_.source_file + "): fit one chip at a time"});
    }
    if (row.kind == RowKind::kCollective && row.slice.size() > topology_.torus.dims.size()) {
      issues.push_back({rows_.file, "slice", row.line, 0,
                        "has " + std::to_string(row.slice.size()) + " dimensions; the topology " +
                            topology_.source_file + " has " +
                            std::to_string(topology_.torus.dims.size())});
    }
  }
  if (!issues.empty())
    throw config::InputError(issues);
  topology_.calibration = {};
  topology_.slices = 1;
  topology_.dcn.reset();
  topology_.failed_links.clear();
  topology_.dead_chips.clear();
  topology_.degraded_links.clear();
  topology_.stragglers.clear();
  topology_.torus.twists.clear();
}

config::PodSpec Predictor::slice_spec(const Row& row, const config::CalibrationSpec& knobs) const {
  config::PodSpec spec = topology_;
  spec.calibration = knobs;
  for (size_t d = 0; d < spec.torus.dims.size(); ++d) {
    const bool in_slice = d < row.slice.size();
    spec.torus.dims[d].size = in_slice ? row.slice[d] : 1;
    spec.torus.dims[d].wraparound = in_slice && row.wraparound[d];
  }
  return spec;
}

double Predictor::predict(size_t index, const config::CalibrationSpec& knobs) const {
  const Row& row = rows_.rows[index];
  if (row.kind != RowKind::kCollective) {
    const auto model = chip::make_compute_model(chip::ComputeModelKind::kRoofline, topology_.chip,
                                                chip::efficiency_of(knobs));
    const chip::Op op =
        row.kind == RowKind::kMatmul ? chip::Op{row.matmul} : chip::Op{config::Copy{row.bytes}};
    return model->time(op).time.to_us();
  }
  const topo::Pod pod(slice_spec(row, knobs));
  config::WorkloadSpec w;
  w.name = "calibrate-row";
  for (size_t d = 0; d < row.slice.size(); ++d) {
    w.mesh.push_back({kRowAxes[d], {static_cast<uint32_t>(d)}});
  }
  config::CollectiveSpec c;
  c.kind = row.collective;
  c.bytes = row.bytes;
  for (const uint32_t a : row.axes)
    c.axes.emplace_back(kRowAxes[a]);
  w.operations.push_back({"collective", {}, 1, c});
  const auto compute = chip::make_compute_model(chip::ComputeModelKind::kRoofline, topology_.chip,
                                                chip::efficiency_of(knobs));
  try {
    const engine::OpListResult r =
        engine::run_op_list(pod, w, engine::network_options(pod, network_), *compute);
    return r.operations.front().per_run.to_us();
  } catch (const std::invalid_argument& e) {
    throw row_error(rows_, row, "bytes",
                    std::string("podsim cannot run this collective: ") + e.what());
  }
}

std::vector<double> Predictor::predict(const config::CalibrationSpec& knobs) const {
  std::vector<double> out(rows_.rows.size());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = predict(i, knobs);
  return out;
}

}  // namespace podsim::calibrate
