// Random inputs for the tests that hold one way of running to another
// (symmetric against full, one network model against another): seeded
// random pods and their meshes, and random operation lists and serving
// steps on them, all of a shape the loaders take.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "config/topology_spec.h"
#include "config/workload_spec.h"
#include "engine/op_list.h"
#include "engine/step.h"
#include "net/network.h"

namespace podsim::engine::testing {

// A uniform integer in [lo, hi].
uint32_t pick(std::mt19937_64& rng, uint32_t lo, uint32_t hi);
bool coin(std::mt19937_64& rng, double p);

// A random pod (1 to 3 dimensions of 2 to 8 chips, wrapped or lines,
// sometimes 2 or 3 slices joined by the DCN) and its mesh: one axis per
// dimension, or the first two dimensions as one axis "xy", and "dcn" over
// the slices if several.
struct RandomPod {
  config::PodSpec pod;
  std::vector<config::MeshAxisDecl> mesh;
  std::vector<std::string> axes;
  std::vector<uint32_t> sizes;  // chips along each axis
};
RandomPod random_pod(std::mt19937_64& rng, std::ostringstream& what);

// An operation list of 1 to 3 random collectives on a random pod: every
// kind but SEND, sizes the loader takes, shifts of either sign, forced
// ring, sequential and direct algorithms, dependencies and repeats.
struct RandomCase {
  config::PodSpec pod;
  config::WorkloadSpec workload;
  std::string description;  // for failure messages
};
RandomCase random_case(uint64_t seed);

// The run's result, or its error message.
struct Outcome {
  std::optional<OpListResult> result;
  std::string error;
};
Outcome play(const RandomCase& c, bool symmetry, net::Model model);

// A serving step on a random pod, folded or not.
struct RandomStep {
  config::PodSpec pod;            // its stragglers, if any, play at half the MXU and HBM rates
  config::WorkloadSpec workload;  // serving, with its mesh
  bool fold = true;
  std::string description;
};
// A small model (a few layers, so that a step plays in milliseconds),
// dense or with experts, decode or prefill, with each mesh axis given a
// role at random: tensor (up to two), data, expert, pipeline or none.
RandomStep random_step(uint64_t seed);

struct StepOutcome {
  std::optional<StepResult> result;
  std::string error;
};
StepOutcome play(const RandomStep& c, bool fold, bool symmetry, net::Model model);

}  // namespace podsim::engine::testing
