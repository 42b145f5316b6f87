// podsim's time for each microbenchmark row under given calibration knobs:
// the forward model `podsim calibrate` fits. A matmul or an HBM copy is one
// operation on the roofline compute model (the model a profile's compute
// knobs are for); a collective runs alone on its slice of the topology,
// lowered and played by the engine on the chosen network model, exactly as
// `podsim run` would run it in an operation list.
#pragma once

#include <vector>

#include "calibrate/rows.h"
#include "config/topology_spec.h"
#include "net/network.h"

namespace podsim::calibrate {

class Predictor {
 public:
  // `topology`: the chip and link figures the rows ran on (its calibration
  // is ignored: the knobs are what is being fitted). Throws
  // config::InputError naming the row (file, line) when a row's chip is not
  // the topology's or its slice has more dimensions than the topology.
  Predictor(config::PodSpec topology, const RowSet& rows, net::Model network);

  // Each row's time in microseconds with `knobs` (only the knobs are read).
  // O(rows) operations; a collective row costs one simulation of it.
  std::vector<double> predict(const config::CalibrationSpec& knobs) const;
  double predict(size_t row, const config::CalibrationSpec& knobs) const;

  const RowSet& rows() const { return rows_; }
  const config::PodSpec& topology() const { return topology_; }

 private:
  config::PodSpec slice_spec(const Row& row, const config::CalibrationSpec& knobs) const;

  config::PodSpec topology_;
  const RowSet& rows_;
  net::Model network_;
};

}  // namespace podsim::calibrate
