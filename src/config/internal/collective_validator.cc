#include "config/internal/collective_validator.h"

#include <cctype>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>

#include "config/internal/chip_pair_validator.h"
#include "config/internal/compute_validator.h"
#include "config/internal/enum_values.h"
#include "podsim/workload.pb.h"

namespace podsim::config::internal {
namespace {

// The smallest whole number of bytes that holds whole elements: int4 packs
// two elements to a byte, so any byte count is whole int4 elements.
uint64_t element_unit_bytes(podsim::DType dtype) {
  switch (dtype) {
    case podsim::FP32:
      return 4;
    case podsim::DTYPE_UNSPECIFIED:  // bf16
    case podsim::BF16:
      return 2;
    default:
      return 1;
  }
}

// "bf16", "int4": as the docs and reports spell dtypes.
std::string dtype_label(podsim::DType dtype) {
  std::string name = dtype == podsim::DTYPE_UNSPECIFIED ? "BF16" : podsim::DType_Name(dtype);
  for (char& ch : name)
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return name;
}

class CollectiveValidator {
 public:
  CollectiveValidator(const Collective& c, const ResolvedMesh& mesh, const PodSpec& pod,
                      const FieldPath& path, IssueList& issues)
      : c_(c), mesh_(mesh), pod_(pod), path_(path), issues_(issues) {}

  void run() {
    const bool kind_ok = check_kind();
    const bool dtype_ok = known_value(*DType_descriptor(), c_.dtype(), path_("dtype"), issues_);
    known_value(*CollectiveAlgorithm_descriptor(), c_.algorithm(), path_("algorithm"), issues_);
    if (kind_ok && c_.kind() == SEND) {
      check_send(dtype_ok);
      return;
    }
    const std::optional<uint64_t> group = group_size();
    if (!kind_ok)
      return;
    check_algorithm();
    check_ignored_fields();
    if (c_.bytes() == 0) {
      issues_.add(path_("bytes"), "must be > 0");
    } else if (c_.bytes() > kMaxOperationBytes) {
      issues_.add(path_("bytes"), std::to_string(c_.bytes()) +
                                      " bytes, more than the limit of 2^56 (" +
                                      std::to_string(kMaxOperationBytes) + ")");
    } else if (dtype_ok) {
      check_bytes(group);
    }
    if (group)
      check_root_and_shift(*group);
  }

 private:
  bool check_kind() {
    return set_and_known(*CollectiveKind_descriptor(), c_.kind(), path_("kind"), issues_);
  }

  // Chips in each group: the product of the listed axes' sizes; nullopt when
  // an axis is missing, unknown, repeated or itself broken (each reported).
  std::optional<uint64_t> group_size() {
    if (c_.axes_size() == 0) {
      issues_.add(path_("axes"),
                  "must name at least one mesh axis (the mesh has " + mesh_.names() + ")");
      return std::nullopt;
    }
    uint64_t chips = 1;
    bool ok = true;
    std::set<std::string> seen;
    for (int k = 0; k < c_.axes_size(); ++k) {
      const std::string& name = c_.axes(k);
      if (!seen.insert(name).second) {
        issues_.add(path_("axes", k), "axis \"" + name + "\" is listed twice");
        ok = false;
        continue;
      }
      const ResolvedAxis* axis = mesh_.find(name);
      if (axis == nullptr) {
        // With no axes at all the mesh itself is reported; naming each miss adds nothing.
        if (!mesh_.axes().empty()) {
          issues_.add(path_("axes", k),
                      "no mesh axis named \"" + name + "\" (the mesh has " + mesh_.names() + ")");
        }
        ok = false;
        continue;
      }
      ok = ok && axis->valid;
      chips *= axis->size;  // at most the pod's chip count: each dimension is used once
    }
    return ok ? std::optional<uint64_t>(chips) : std::nullopt;
  }

  void check_algorithm() {
    const std::string kind = CollectiveKind_Name(c_.kind());
    if (c_.algorithm() == podsim::DIRECT && c_.kind() != podsim::ALL_TO_ALL) {
      issues_.add(path_("algorithm"), "DIRECT applies to ALL_TO_ALL only");
    }
    if (c_.algorithm() == podsim::SNAKE_RING &&
        (c_.kind() == ALL_TO_ALL || c_.kind() == COLLECTIVE_PERMUTE)) {
      issues_.add(path_("algorithm"),
                  "SNAKE_RING applies to ALL_GATHER, REDUCE_SCATTER, ALL_REDUCE and BROADCAST; " +
                      kind + " has no ring to lay out");
    }
  }

  // A send names its chips, not mesh axes; it moves `bytes` per pair whole.
  void check_send(bool dtype_ok) {
    if (c_.axes_size() != 0) {
      issues_.add(path_("axes"), "SEND names its chips in pairs, not mesh axes; remove axes");
    }
    if (c_.algorithm() != podsim::ALGORITHM_AUTO) {
      issues_.add(path_("algorithm"),
                  "SEND has no algorithm to choose: its bytes split over the link-disjoint routes "
                  "between the two chips");
    }
    check_ignored_fields();
    if (c_.bytes() == 0) {
      issues_.add(path_("bytes"), "must be > 0");
    } else if (c_.bytes() > kMaxOperationBytes) {
      issues_.add(path_("bytes"), std::to_string(c_.bytes()) +
                                      " bytes, more than the limit of 2^56 (" +
                                      std::to_string(kMaxOperationBytes) + ")");
    } else if (dtype_ok) {
      check_bytes(std::nullopt);
    }
    validate_chip_pairs(c_, pod_, path_, issues_);
  }

  // "the 16 chips of axes [x, y]"
  std::string group_label(uint64_t chips) const {
    std::string axes;
    for (const std::string& a : c_.axes())
      axes += (axes.empty() ? "" : ", ") + a;
    return "the " + plural(chips, "chip") + " of axes [" + axes + "]";
  }

  // Fields proto3 cannot tell from unset only when non-zero; set on a kind
  // that has no use for them they would be ignored silently, so say so.
  void check_ignored_fields() {
    const std::string kind = CollectiveKind_Name(c_.kind());
    if (c_.root() != 0 && c_.kind() != BROADCAST) {
      issues_.add(path_("root"), "only BROADCAST has a root; " + kind + " would ignore it");
    }
    if (c_.shift() != 0 && c_.kind() != COLLECTIVE_PERMUTE) {
      issues_.add(path_("shift"),
                  "only COLLECTIVE_PERMUTE has a shift; " + kind + " would ignore it");
    }
    if (c_.compute_reduction() && c_.kind() != REDUCE_SCATTER && c_.kind() != ALL_REDUCE) {
      issues_.add(path_("compute_reduction"),
                  "only REDUCE_SCATTER and ALL_REDUCE reduce; " + kind + " would ignore it");
    }
    if (c_.pairs_size() != 0 && c_.kind() != SEND) {
      issues_.add(path_("pairs"), "only SEND has pairs; " + kind + " would ignore them");
    }
  }

  // The buffer must split into whole elements, in whole pieces: one per chip
  // (all-gather, reduce-scatter, all-reduce) or one per pair of chips
  // (all-to-all). Never rounded: a simulated transfer of the wrong size
  // would silently change the answer.
  void check_bytes(std::optional<uint64_t> group) {
    const uint64_t bytes = c_.bytes();
    const uint64_t unit = element_unit_bytes(c_.dtype());
    const std::string elements = " a whole number of " + dtype_label(c_.dtype()) + " elements (" +
                                 plural(unit, "byte") + " each)";
    if (bytes % unit != 0) {
      issues_.add(path_("bytes"), plural(bytes, "byte") + " is not" + elements);
      return;
    }
    if (!group)
      return;
    const bool all_to_all = c_.kind() == ALL_TO_ALL;
    if (!all_to_all && c_.kind() != ALL_GATHER && c_.kind() != REDUCE_SCATTER &&
        c_.kind() != ALL_REDUCE) {
      return;  // broadcast and permute move the buffer whole
    }
    const uint64_t pieces = all_to_all ? *group * *group : *group;
    const std::string advice = "; use a multiple of " + std::to_string(pieces * unit);
    if (bytes % pieces != 0) {
      issues_.add(path_("bytes"),
                  all_to_all ? plural(bytes, "byte") + " do not divide evenly into the " +
                                   std::to_string(*group) + " x " + std::to_string(*group) +
                                   " blocks of an all-to-all over " + group_label(*group) + advice
                             : plural(bytes, "byte") + " do not divide evenly over " +
                                   group_label(*group) + advice);
      return;
    }
    if ((bytes / pieces) % unit != 0) {
      issues_.add(path_("bytes"), std::string(all_to_all ? "each block" : "each chip's share") +
                                      " of " + plural(bytes, "byte") + " over " +
                                      group_label(*group) + " (" + plural(bytes / pieces, "byte") +
                                      ") is not" + elements + advice);
    }
  }

  void check_root_and_shift(uint64_t group) {
    if (c_.kind() == BROADCAST && c_.root() >= group) {
      issues_.add(path_("root"), "must be < " + std::to_string(group) + " (each group is " +
                                     group_label(group) + "), got " + std::to_string(c_.root()));
    }
    if (c_.kind() != COLLECTIVE_PERMUTE)
      return;
    const int64_t shift = c_.shift();
    if (shift == 0) {
      issues_.add(path_("shift"), "must not be 0: a permute by 0 moves nothing");
    } else if (group == 1) {
      issues_.add(path_("shift"),
                  "each group is " + group_label(group) + ": there is no other chip to send to");
    } else if (static_cast<uint64_t>(std::llabs(shift)) >= group) {
      issues_.add(path_("shift"), "must be in [-" + std::to_string(group - 1) + ", " +
                                      std::to_string(group - 1) + "] (not 0) for " +
                                      group_label(group) + ", got " + std::to_string(shift));
    }
  }

  const Collective& c_;
  const ResolvedMesh& mesh_;
  const PodSpec& pod_;
  const FieldPath path_;
  IssueList& issues_;
};

}  // namespace

void validate_collective(const Collective& collective, const ResolvedMesh& mesh, const PodSpec& pod,
                         const FieldPath& path, IssueList& issues) {
  CollectiveValidator(collective, mesh, pod, path, issues).run();
}

}  // namespace podsim::config::internal
