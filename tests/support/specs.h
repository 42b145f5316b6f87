// Shared test fixtures: pods with the published TPU v5e chip and round link
// figures, and published model architectures, built in code so a test's
// expectations can be worked out by hand from the numbers here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/serving_spec.h"
#include "config/topology_spec.h"
#include "config/workload_spec.h"
#include "sim/time.h"

namespace podsim::testing {

// TPU v5e as published ([GC], [SB]): 197 TFLOP/s bf16, 394 TOP/s int8, 16 GB
// of HBM at 819 GB/s, four 128x128 MXUs at 1.5 GHz, four ICI ports.
config::ChipSpec v5e_chip();

struct TorusDim {
  std::string name;
  uint32_t size = 1;
  bool wraparound = false;
};

struct PodOptions {
  double link_gbps = 50;  // one way per link, v5e's figure
  double hbm_gbps = 819;  // per chip
  sim::Time hop_latency = sim::Time::us(1);
};

// One slice of v5e chips on the given torus.
config::PodSpec v5e_torus(const std::vector<TorusDim>& dims, const PodOptions& options = {});

// A collective of `kind` moving `bytes` over the named mesh axes (the
// other fields at their defaults).
config::CollectiveSpec collective(config::CollectiveKind kind, uint64_t bytes,
                                  std::vector<std::string> axes);

// LLaMA-3 ("The Llama 3 Herd of Models", table 3): GQA with 8 KV heads, head
// dim 128, SwiGLU, untied embeddings, vocabulary 128256.
config::ModelSpec llama3_8b();
config::ModelSpec llama3_70b();

}  // namespace podsim::testing
