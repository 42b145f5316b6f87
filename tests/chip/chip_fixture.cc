#include "chip_fixture.h"

namespace podsim::chip::testing {

config::ChipSpec v5e() {
  config::ChipSpec c;
  c.name = "TPU v5e";
  c.peak_bf16_flops = 1.97e14;
  c.peak_int8_ops = 3.94e14;
  c.peak_fp8_flops = 0;
  c.hbm_bytes = 16'000'000'000;
  c.hbm_bandwidth = sim::Bandwidth::bytes_per_s(819'000'000'000);
  c.mxu_count = 4;
  c.mxu_rows = 128;
  c.mxu_columns = 128;
  c.mxu_clock_hz = 1.5e9;
  c.vmem_bytes = 128ull << 20;
  c.ici_ports = 4;
  return c;
}

config::ChipSpec one_array(uint32_t rows, uint32_t columns, uint64_t hbm_bytes_per_cycle,
                           double int8_speedup) {
  config::ChipSpec c;
  c.name = "one array";
  c.peak_bf16_flops = 2.0 * rows * columns * 1e9;
  c.peak_int8_ops = c.peak_bf16_flops * int8_speedup;
  c.hbm_bytes = 1ull << 30;
  c.hbm_bandwidth = sim::Bandwidth::bytes_per_s(hbm_bytes_per_cycle * 1'000'000'000);
  c.mxu_count = 1;
  c.mxu_rows = rows;
  c.mxu_columns = columns;
  c.mxu_clock_hz = 1e9;
  c.vmem_bytes = 1ull << 27;
  return c;
}

}  // namespace podsim::chip::testing
