// Serving-step workloads built from parts, for commands that generate
// configurations rather than read them (podsim search): the model of an
// existing workload file, plus a mesh, a sharding and a scenario given as
// typed values.
//
// The result is workload text, which the caller loads with
// parse_workload_text() against the pod like any file, so a generated
// configuration obeys every rule a hand-written one does (docs/inputs.md),
// and the same text is what `podsim search --write-best` saves for
// `podsim run`. Generated protobuf types stay inside src/config.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "config/overrides.h"
#include "config/serving_spec.h"

namespace podsim::config {

// One axis of a generated mesh: a name and the torus dimensions it lies
// over ("x", "y", ... or "slice"), first fastest, as in MeshAxis.
struct CandidateAxis {
  std::string name;
  std::vector<std::string> dims;

  friend bool operator==(const CandidateAxis&, const CandidateAxis&) = default;
};

// Everything of a serving workload but the model.
struct ServingCandidate {
  std::string name;         // the workload's name
  std::string description;  // free text
  std::vector<CandidateAxis> mesh;
  ScenarioSpec scenario;  // micro_batches 1 is written as unset
  // Defaults (all-reduce, KV by heads, overlap on) are written as unset
  // fields, so the text reads as a hand-written file would.
  ShardingSpec sharding;
};

// The serving model of a workload file, read once and reused for every
// candidate built from it.
class ServingModel {
 public:
  // Reads `path` (text or binary, by extension as load_workload_file()),
  // which must hold a podsim.Workload with a `model`; its other parts are
  // ignored. Throws InputError naming the file, the field and the reason
  // when the file does not parse, has unknown fields, has no model, or the
  // model breaks a rule of its own (docs/inputs.md, "Model" and "Moe").
  // `overrides` rooted at "workload." (--set) are applied to the file's
  // message before the model's rules run, as load_workload_file() does.
  static ServingModel load(const std::filesystem::path& path, const Overrides& overrides = {});

  const ModelSpec& spec() const { return spec_; }
  const std::string& source_file() const { return source_file_; }

  // The workload text of `candidate` with this model: the two proto header
  // lines, a "# topology: <topology_comment>" line when that is not empty,
  // then name, description, mesh, model, scenario and sharding in text
  // format. Deterministic: equal inputs give equal bytes. O(size of the text).
  std::string workload_text(const ServingCandidate& candidate,
                            std::string_view topology_comment) const;

 private:
  ServingModel() = default;

  std::string source_file_;
  std::string model_text_;  // the model message in text format
  ModelSpec spec_;
};

}  // namespace podsim::config
