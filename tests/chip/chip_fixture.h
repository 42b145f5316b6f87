// Chips for the chip-layer tests, built from published figures
// (cloud.google.com/tpu/docs/v5e; topologies/v5e-16x16.textproto) rather
// than loaded, so these tests do not depend on the loader.
#pragma once

#include <cstdint>

#include "config/topology_spec.h"

namespace podsim::chip::testing {

// TPU v5e: 1.97e14 bf16 FLOP/s, 3.94e14 int8 OP/s, no fp8, 819 GB/s HBM,
// 4 MXUs of 128 x 128 at 1.5 GHz, 128 MiB VMEM.
config::ChipSpec v5e();

// One rows x columns array at 1 GHz, its bf16 peak exactly 2 x rows x
// columns x 1e9, int8 at `int8_speedup` times that, and HBM at
// `hbm_bytes_per_cycle` bytes per cycle (x 1e9 B/s): numbers that make
// cycle counts easy to work out by hand.
config::ChipSpec one_array(uint32_t rows, uint32_t columns, uint64_t hbm_bytes_per_cycle,
                           double int8_speedup = 1);

}  // namespace podsim::chip::testing
