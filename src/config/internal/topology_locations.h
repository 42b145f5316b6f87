// Where a topology's faults sit: a chip (slice + coords) or a link leaving
// one (plus dim and direction). Shared by the rules of failed links, dead
// chips, degraded links and stragglers (topology_validator.cc,
// topology_faults.cc), so each names a bad location the same way.
#pragma once

#include <google/protobuf/repeated_field.h>

#include <cstdint>

#include "config/internal/field_path.h"
#include "config/internal/issue_list.h"

namespace podsim {
class Topology;
}  // namespace podsim

namespace podsim::config::internal {

using Coords = google::protobuf::RepeatedField<uint32_t>;

// True when (slice, coords) names a chip of `t`; records each problem under
// path("slice") or path("coords", j) otherwise.
bool check_chip_at(IssueList& issues, const FieldPath& path, const podsim::Topology& t,
                   uint32_t slice, const Coords& coords);

// True when the chip exists and a link leaves it along `dim` in `direction`
// (+1 or -1): not along a size-1 dimension, not off either end of a line.
bool check_link_at(IssueList& issues, const FieldPath& path, const podsim::Topology& t,
                   uint32_t slice, const Coords& coords, uint32_t dim, int32_t direction);

}  // namespace podsim::config::internal
