// A chip's power model (topology.proto Power; docs/energy.md): what it draws
// idle, what its host draws, and the dynamic energy of each unit of work,
// with the operating point the clock knob chose.
#pragma once

#include <string>

namespace podsim::config {

struct PowerSpec {
  // False when the topology gives no power model: results then carry no
  // energy (rather than zeros that read as "free").
  bool modelled = false;
  double idle_watts = 0;  // at the operating voltage (scaled by `voltage`)
  double host_watts = 0;
  // Dynamic energies per unit of work, in picojoules, at the operating
  // voltage: the matrix units', vector unit's and VMEM's scaled by
  // voltage^2; HBM, ICI and DCN as given.
  double mxu_bf16_pj_per_flop = 0;
  double mxu_int8_pj_per_op = 0;
  double mxu_fp8_pj_per_flop = 0;
  double vector_pj_per_flop = 0;
  double hbm_pj_per_byte = 0;
  double vmem_pj_per_byte = 0;
  double ici_pj_per_byte_per_hop = 0;
  double dcn_pj_per_byte = 0;
  double tdp_watts = 0;  // published maximum; 0 when none
  // The operating point (config/dvfs.h): clock and core voltage as
  // fractions of nominal, and the law's parameters.
  double clock_factor = 1.0;
  double voltage = 1.0;
  double threshold_voltage = 0.3;
  double alpha = 1.3;
  double min_voltage = 0.6;
  std::string source;

  friend bool operator==(const PowerSpec&, const PowerSpec&) = default;
};

}  // namespace podsim::config
