// The JAX benchmark script's template (benchmark_template.py, compiled in by
// embed_text.cmake): `__PODSIM_PLAN__` and `__PODSIM_TOPOLOGY__` stand for
// the plan's rows and the topology file.
#pragma once

#include <string_view>

namespace podsim::calibrate {

std::string_view benchmark_template_text();

}  // namespace podsim::calibrate
