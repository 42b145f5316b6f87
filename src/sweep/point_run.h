// One sweep point run into a podsim.Result: the point's overrides applied to
// its base files (or the embedded defaults), loaded, and evaluated by
// study::evaluate(). Never throws for bad input: a point whose overrides or
// inputs break a rule is a result with status invalid and the loader's
// diagnostics as its reason. Safe to call from several threads at once.
#pragma once

#include "podsim/result.pb.h"
#include "sweep/points.h"

namespace podsim::sweep {

struct PointOptions {
  bool allow_oom = false;  // simulate points that do not fit (flagged), as --allow-oom
};

podsim::Result run_point(const Point& point, const PointOptions& options);

}  // namespace podsim::sweep
