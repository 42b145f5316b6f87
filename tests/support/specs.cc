#include "specs.h"

#include <algorithm>
#include <utility>

namespace podsim::testing {

config::ChipSpec v5e_chip() {
  config::ChipSpec c;
  c.name = "v5e-like";
  c.peak_bf16_flops = 1.97e14;
  c.peak_int8_ops = 3.94e14;
  c.hbm_bytes = 16'000'000'000;
  c.hbm_bandwidth = sim::Bandwidth::from_gbps(819);
  c.mxu_count = 4;
  c.mxu_rows = 128;
  c.mxu_columns = 128;
  c.mxu_clock_hz = 1.5e9;
  c.vmem_bytes = 128ull << 20;
  c.ici_ports = 4;
  return c;
}

config::PodSpec v5e_torus(const std::vector<TorusDim>& dims, const PodOptions& options) {
  config::PodSpec s;
  s.name = "test-pod";
  s.chip = v5e_chip();
  s.chip.hbm_bandwidth = sim::Bandwidth::from_gbps(options.hbm_gbps);
  // Test tori may have three dimensions: give the chip the ports they need.
  s.chip.ici_ports = std::max<uint32_t>(s.chip.ici_ports, 2 * static_cast<uint32_t>(dims.size()));
  for (const TorusDim& d : dims) {
    config::DimensionSpec ds;
    ds.name = d.name;
    ds.size = d.size;
    ds.wraparound = d.wraparound;
    ds.link_bandwidth = sim::Bandwidth::from_gbps(options.link_gbps);
    ds.hop_latency = options.hop_latency;
    s.torus.dims.push_back(ds);
  }
  return s;
}

config::ModelSpec llama3_8b() {
  config::ModelSpec m;
  m.name = "llama3-8b";
  m.layers = 32;
  m.d_model = 4096;
  m.heads = 32;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.ffn_dim = 14336;
  m.vocab = 128256;
  return m;
}

config::ModelSpec llama3_70b() {
  config::ModelSpec m = llama3_8b();
  m.name = "llama3-70b";
  m.layers = 80;
  m.d_model = 8192;
  m.heads = 64;
  m.ffn_dim = 28672;
  return m;
}

config::CollectiveSpec collective(config::CollectiveKind kind, uint64_t bytes,
                                  std::vector<std::string> axes) {
  config::CollectiveSpec c;
  c.kind = kind;
  c.bytes = bytes;
  c.axes = std::move(axes);
  return c;
}

}  // namespace podsim::testing
