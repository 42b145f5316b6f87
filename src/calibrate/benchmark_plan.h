// `podsim calibrate --emit-benchmark DIR`: the microbenchmarks a fit of every
// knob needs on a topology's chip and slice, and the JAX script that times
// them on a user's TPU and writes the measurements CSV `podsim calibrate`
// reads (docs/calibration.md, "Measuring your own TPU").
#pragma once

#include <string>

#include "calibrate/predict.h"
#include "calibrate/rows.h"
#include "config/topology_spec.h"

namespace podsim::calibrate {

// The plan, as rows without measurements: matmuls whose shapes separate the
// matrix-unit efficiency from its per-tile cost (square, and skinny ones
// with few streamed rows), HBM copies from 1 MiB to 1 GiB (efficiency and
// latency), and all-gathers over each dimension of the topology's slice at
// four sizes plus all-reduces over all of them (link efficiency, per-
// collective and per-step costs: the dimensions' rings and lines have
// different step counts). Sources are empty; lines count from 2.
RowSet benchmark_plan(const config::PodSpec& topology);

// The script: the plan with podsim's prediction of each row under the
// topology's own calibration (the script's --dry-run writes those, so
// `podsim calibrate` on its output gives those knobs back).
std::string benchmark_script(const RowSet& plan, const Predictor& predictor,
                             const config::PodSpec& topology);

}  // namespace podsim::calibrate
