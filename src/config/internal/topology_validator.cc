#include "config/internal/topology_validator.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

#include "config/internal/calibration_validator.h"
#include "config/internal/power_validator.h"
#include "config/internal/topology_faults.h"
#include "config/internal/topology_locations.h"
#include "config/workload_spec.h"
#include "podsim/topology.pb.h"

namespace podsim::config::internal {
namespace {

// ICI ports one chip uses along a dimension: none on size 1, one neighbour on
// size 2, two on size >= 3 (wrapped, or the middle chips of a line).
uint32_t ports_needed(uint32_t size) {
  return size <= 1 ? 0 : size == 2 ? 1 : 2;
}

// A given peak may differ this much from the matrix units' rate: the published
// figures are rounded (v5e: 197 TFLOP/s against 4 x 128 x 128 x 2 x 1.5 GHz
// = 196.6), a wrong geometry or a stale peak is off by far more.
constexpr double kPeakTolerance = 0.02;

// "786.4", "0.002": four significant digits.
std::string format_rate(double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", value);
  return buf;
}

// "+299.9%", "-50.0%"
std::string format_percent(double fraction) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.1f%%", fraction * 100);
  return buf;
}

// 1 when the file leaves `slices` at 0.
uint32_t effective_slices(const Topology& t) {
  return t.slices() == 0 ? 1 : t.slices();
}

// "16 x 20 x 28", with " x 2 slices" appended for multi-slice pods.
std::string shape_string(const Topology& t) {
  std::string out;
  for (const Dimension& d : t.torus().dims()) {
    if (!out.empty())
      out += " x ";
    out += std::to_string(d.size());
  }
  if (effective_slices(t) > 1)
    out += " x " + std::to_string(effective_slices(t)) + " slices";
  return out;
}

class TopologyValidator {
 public:
  explicit TopologyValidator(const Topology& topology) : t_(topology) {}

  std::vector<FieldIssue> run() {
    if (t_.name().empty())
      issues_.add(root_("name"), "must not be empty");
    check_chip();
    check_torus();
    check_slices_and_dcn();
    for (int i = 0; i < t_.failed_links_size(); ++i)
      check_failed_link(i);
    check_faults(issues_, root_, t_);
    check_calibration();
    return issues_.issues();
  }

 private:
  void bandwidth(const FieldPath& path, double gbps, bool zero_allowed) {
    const bool ok = zero_allowed ? issues_.non_negative(path, gbps) : issues_.positive(path, gbps);
    if (ok && issues_.at_most(path, gbps, kMaxBandwidthGbps, "GB/s") && gbps > 0 &&
        gbps < kMinBandwidthGbps) {
      issues_.add(path, "must be >= 0.001 GB/s (1 MB/s), got " + format_rate(gbps) +
                            " GB/s: a link or memory that slow is a typo");
    }
  }

  void latency(const FieldPath& path, double ns) {
    if (issues_.non_negative(path, ns))
      issues_.at_most(path, ns, kMaxLatencyNs, "ns");
  }

  void check_chip() {
    const FieldPath chip = root_("chip");
    if (!t_.has_chip()) {
      issues_.add(chip, "missing chip spec");
      return;
    }
    const Chip& c = t_.chip();
    if (c.name().empty())
      issues_.add(chip("name"), "must not be empty");
    const FieldPath peak = chip("peak");
    const bool bf16 = issues_.non_negative(peak("bf16_tflops"), c.peak().bf16_tflops());
    const bool int8 = issues_.non_negative(peak("int8_tops"), c.peak().int8_tops());
    const bool fp8 = issues_.non_negative(peak("fp8_tflops"), c.peak().fp8_tflops());
    issues_.at_least(chip("hbm_bytes"), c.hbm_bytes(), 1);
    bandwidth(chip("hbm_bandwidth_gbps"), c.hbm_bandwidth_gbps(), false);
    const FieldPath mxu = chip("matrix_units");
    const MatrixUnits& m = c.matrix_units();
    bool geometry = issues_.at_least(mxu("count"), m.count(), 1);
    geometry &= issues_.at_least(mxu("rows"), m.rows(), 1);
    geometry &= issues_.at_least(mxu("columns"), m.columns(), 1);
    geometry &= issues_.positive(mxu("clock_ghz"), m.clock_ghz()) &&
                issues_.at_most(mxu("clock_ghz"), m.clock_ghz(), kMaxClockGhz, "GHz");
    if (m.clock_ghz() > 0 && m.clock_ghz() < kMinClockGhz) {
      issues_.add(mxu("clock_ghz"),
                  "must be >= 0.001 GHz (1 MHz), got " + format_rate(m.clock_ghz()) + " GHz");
      geometry = false;
    }
    issues_.at_most(mxu("int8_macs_per_cycle"), m.int8_macs_per_cycle(), kMaxMacsPerCycle, "");
    issues_.at_most(mxu("fp8_macs_per_cycle"), m.fp8_macs_per_cycle(), kMaxMacsPerCycle, "");
    if (issues_.non_negative(mxu("weight_load_bytes_per_cycle"), m.weight_load_bytes_per_cycle()))
      issues_.at_most(mxu("weight_load_bytes_per_cycle"), m.weight_load_bytes_per_cycle(),
                      kMaxWeightLoadBytesPerCycle, "bytes");
    if (geometry) {
      const double tmacs = static_cast<double>(m.count()) * m.rows() * m.columns() * m.clock_ghz() *
                           1e-3;  // 1e12 MAC/s at one MAC per cell per cycle
      if (bf16)
        check_peak(peak("bf16_tflops"), c.peak().bf16_tflops(), "bf16", "TFLOP/s", tmacs, 1, "");
      if (int8)
        check_peak(peak("int8_tops"), c.peak().int8_tops(), "int8", "TOP/s", tmacs,
                   m.int8_macs_per_cycle(), "int8_macs_per_cycle");
      if (fp8)
        check_peak(peak("fp8_tflops"), c.peak().fp8_tflops(), "fp8", "TFLOP/s", tmacs,
                   m.fp8_macs_per_cycle(), "fp8_macs_per_cycle");
    }
    if (issues_.at_least(chip("ici_ports"), c.ici_ports(), 1))
      check_ports();
    check_tensor_core(chip("tensor_core"), c);
    check_power(issues_, chip("power"), t_);
  }

  // 0 takes the default; a given value must make sense.
  void check_tensor_core(const FieldPath& at, const Chip& c) {
    const TensorCore& tc = c.tensor_core();
    if (issues_.at_most(at("cores"), tc.cores(), kMaxTensorCores, "") && tc.cores() > 1 &&
        c.matrix_units().count() % tc.cores() != 0) {
      issues_.add(at("cores"), "must divide matrix_units.count (" +
                                   std::to_string(c.matrix_units().count()) +
                                   "): the cores share the matrix units evenly, got " +
                                   std::to_string(tc.cores()));
    }
    issues_.at_most(at("vector_lanes"), tc.vector_lanes(), kMaxVectorWidth, "");
    issues_.at_most(at("vector_sublanes"), tc.vector_sublanes(), kMaxVectorWidth, "");
    issues_.at_most(at("vector_alus"), tc.vector_alus(), kMaxVectorWidth, "");
    if (issues_.non_negative(at("transcendentals_per_cycle"), tc.transcendentals_per_cycle()))
      issues_.at_most(at("transcendentals_per_cycle"), tc.transcendentals_per_cycle(),
                      kMaxVectorWidth * kMaxVectorWidth, "");
    bandwidth(at("dma_bandwidth_gbps"), tc.dma_bandwidth_gbps(), true);
    latency(at("dma_latency_ns"), tc.dma_latency_ns());
    issues_.at_most(at("dma_granule_bytes"), tc.dma_granule_bytes(), kMaxDmaGranuleBytes, "bytes");
    if (issues_.non_negative(at("step_issue_cycles"), tc.step_issue_cycles()))
      issues_.at_most(at("step_issue_cycles"), tc.step_issue_cycles(), kMaxStepIssueCycles, "");
  }

  // A given peak must agree with the matrix units' rate (2 x `macs_per_cycle`
  // x `tmacs`) within kPeakTolerance; unset it is derived from them. A
  // `rate_field` of "" is bf16's, whose rate is one MAC per cell per cycle.
  void check_peak(const FieldPath& path, double given, const char* dtype, const char* unit,
                  double tmacs, uint32_t macs_per_cycle, const char* rate_field) {
    if (given == 0)
      return;
    if (macs_per_cycle == 0) {
      issues_.add(path, std::string("an ") + dtype + " peak needs matrix_units." + rate_field +
                            " (" + dtype +
                            " multiply-accumulates per cell per cycle, where bf16 does one: 1 "
                            "when the chip runs " +
                            dtype +
                            " at the bf16 rate, 2 at twice it); set it, or drop the peak "
                            "if the chip has no " +
                            dtype + " path");
      return;
    }
    const MatrixUnits& m = t_.chip().matrix_units();
    const double derived = 2.0 * macs_per_cycle * tmacs;
    const double off = given / derived - 1.0;
    if (std::abs(off) <= kPeakTolerance)
      return;
    std::string rate;
    if (macs_per_cycle != 1)
      rate = " FLOP per MAC x " + std::to_string(macs_per_cycle) + " MACs per cell per cycle";
    else
      rate = " FLOP per MAC";
    issues_.add(path, format_number(given) + " " + unit + " disagrees by " + format_percent(off) +
                          " with the matrix units' " + format_rate(derived) + " " + unit + " (" +
                          plural(m.count(), "unit") + " x " + std::to_string(m.rows()) + " x " +
                          std::to_string(m.columns()) + " cells x 2" + rate + " x " +
                          format_number(m.clock_ghz()) +
                          " GHz); leave the peak unset (0) to take it from the matrix units, "
                          "or make the two agree within 2%");
  }

  void check_ports() {
    uint32_t needed = 0;
    for (const Dimension& d : t_.torus().dims())
      needed += ports_needed(d.size());
    if (t_.chip().ici_ports() >= needed)
      return;
    issues_.add(root_("chip")("ici_ports"),
                "the torus needs " + std::to_string(needed) +
                    " ICI ports per chip (2 per dimension of size >= 3, 1 per dimension of size "
                    "2), the chip has " +
                    std::to_string(t_.chip().ici_ports()));
  }

  void check_torus() {
    const FieldPath torus = root_("torus");
    if (t_.torus().dims_size() == 0) {
      issues_.add(torus("dims"), "must list at least one dimension");
      return;
    }
    for (int i = 0; i < t_.torus().dims_size(); ++i)
      check_dimension(i);
    check_dimension_names();
    // dim -> the first twist of that dimension's wrap, over the whole list, so a
    // shift along a dimension twisted by a later entry is caught too.
    std::map<uint32_t, int> twisted_by;
    for (int i = t_.torus().twists_size() - 1; i >= 0; --i)
      twisted_by[t_.torus().twists(i).dim()] = i;
    std::map<std::pair<uint32_t, uint32_t>, int> pair_first;  // (dim, shift_dim) -> twist
    for (int i = 0; i < t_.torus().twists_size(); ++i)
      check_twist(i, twisted_by, pair_first);
    check_chip_count();
  }

  void check_dimension(int i) {
    const FieldPath path = root_("torus")("dims", i);
    const Dimension& d = t_.torus().dims(i);
    issues_.at_least(path("size"), d.size(), 1);
    // A dimension of size 1 has no links, so its link figures may be left at 0.
    bandwidth(path("link_bandwidth_gbps"), d.link_bandwidth_gbps(), d.size() <= 1);
    latency(path("hop_latency_ns"), d.hop_latency_ns());
    if (d.wraparound() && d.size() < 3) {
      issues_.add(path("wraparound"),
                  "needs size >= 3, got size " + std::to_string(d.size()) +
                      " (on 2 chips the wrap link would duplicate the direct link)");
    }
  }

  void check_dimension_names() {
    std::map<std::string, int> first_use;
    for (int i = 0; i < t_.torus().dims_size(); ++i) {
      const std::string name = dimension_name(t_.torus().dims(i), i);
      if (name == kSliceDimName) {
        issues_.add(root_("torus")("dims", i)("name"),
                    "\"slice\" is reserved: workload meshes use it for the slices");
      }
      const auto [it, inserted] = first_use.emplace(name, i);
      if (!inserted) {
        issues_.add(root_("torus")("dims", i)("name"), "duplicate dimension name \"" + name +
                                                           "\" (also dims[" +
                                                           std::to_string(it->second) + "])");
      }
    }
  }

  // True when `value` indexes a dimension; records an issue at `path` otherwise.
  bool dimension_index(const FieldPath& path, uint32_t value) {
    const auto count = static_cast<uint32_t>(t_.torus().dims_size());
    if (value < count)
      return true;
    issues_.add(path, "must be < " + std::to_string(count) + " (the number of dimensions), got " +
                          std::to_string(value));
    return false;
  }

  // One dimension's wrap may shift several others (a k x 2k x 2k slice shifts
  // both long axes), but each (dim, shift_dim) pair at most once, and never
  // along a dimension that is itself twisted: with such a chain the +dim and
  // +shift_dim moves no longer commute at the wraps (x then y and y then x
  // reach different chips), so the pod is not a torus and routes and metrics
  // lose their guarantees.
  void check_twist(int i, const std::map<uint32_t, int>& twisted_by,
                   std::map<std::pair<uint32_t, uint32_t>, int>& pair_first) {
    const FieldPath path = root_("torus")("twists", i);
    const Twist& tw = t_.torus().twists(i);
    const bool dim_ok = dimension_index(path("dim"), tw.dim());
    const bool shift_ok = dimension_index(path("shift_dim"), tw.shift_dim());
    if (dim_ok && shift_ok && tw.dim() == tw.shift_dim()) {
      issues_.add(path("shift_dim"),
                  "must differ from dim (both are " + std::to_string(tw.dim()) + ")");
    }
    if (dim_ok) {
      const Dimension& d = t_.torus().dims(static_cast<int>(tw.dim()));
      const std::string name = dimension_name(d, static_cast<int>(tw.dim()));
      if (!d.wraparound()) {
        issues_.add(path("dim"),
                    "dimension " + name + " has no wraparound; only a wrap link can be twisted");
      }
    }
    if (!shift_ok)
      return;
    const Dimension& s = t_.torus().dims(static_cast<int>(tw.shift_dim()));
    const std::string shift_name = dimension_name(s, static_cast<int>(tw.shift_dim()));
    if (tw.offset() == 0 || tw.offset() >= s.size()) {
      issues_.add(path("offset"), "must be in [1, size of shift dimension " + shift_name +
                                      " - 1 = " + std::to_string(s.size() == 0 ? 0 : s.size() - 1) +
                                      "], got " + std::to_string(tw.offset()));
    }
    if (!dim_ok || tw.dim() == tw.shift_dim())
      return;
    const std::string name =
        dimension_name(t_.torus().dims(static_cast<int>(tw.dim())), static_cast<int>(tw.dim()));
    const auto [it, inserted] = pair_first.emplace(std::pair{tw.dim(), tw.shift_dim()}, i);
    if (!inserted) {
      issues_.add(path("shift_dim"), "twists[" + std::to_string(it->second) +
                                         "] already shifts the wrap of " + name + " along " +
                                         shift_name + "; give each (dim, shift_dim) pair once");
    }
    const auto twisted = twisted_by.find(tw.shift_dim());
    if (twisted != twisted_by.end()) {
      issues_.add(path("shift_dim"), "dimension " + shift_name + " is itself twisted (twists[" +
                                         std::to_string(twisted->second) +
                                         "]); a twist may only shift along an untwisted dimension");
    }
  }

  // Product of sizes and slices, saturating so that no input can overflow it.
  void check_chip_count() {
    uint64_t chips = effective_slices(t_);
    for (const Dimension& d : t_.torus().dims()) {
      if (__builtin_mul_overflow(chips, uint64_t{d.size()}, &chips) || chips > kMaxChips) {
        chips = kMaxChips + 1;
      }
    }
    if (chips <= kMaxChips)
      return;
    issues_.add(root_("torus"), "the pod (" + shape_string(t_) + ") has more than " +
                                    std::to_string(kMaxChips) + " chips, the simulator's limit");
  }

  void check_slices_and_dcn() {
    const FieldPath dcn = root_("dcn");
    if (effective_slices(t_) > 1) {
      if (!t_.has_dcn()) {
        issues_.add(dcn, "missing: " + std::to_string(t_.slices()) +
                             " slices can only talk over the data-center network");
        return;
      }
      bandwidth(dcn("bandwidth_gbps_per_chip"), t_.dcn().bandwidth_gbps_per_chip(), false);
      latency(dcn("latency_ns"), t_.dcn().latency_ns());
    } else if (t_.has_dcn()) {
      issues_.add(dcn, "unused: the pod has a single slice (set slices > 1 or remove dcn)");
    }
  }

  void check_failed_link(int i) {
    const FailedLink& f = t_.failed_links(i);
    check_link_at(issues_, root_("failed_links", i), t_, f.slice(), f.coords(), f.dim(),
                  f.direction());
  }

  void check_calibration() {
    if (!t_.has_calibration())
      return;
    const FieldPath path = root_("calibration");
    const KnobsSet set = check_calibration_knobs(t_.calibration(), path, issues_);
    if (set.any() && t_.calibration().source().empty()) {
      issues_.add(path("source"),
                  "required when a calibration knob is set: say where the numbers came from");
    }
  }

  const Topology& t_;
  const FieldPath root_;
  IssueList issues_;
};

}  // namespace

std::vector<FieldIssue> validate_topology(const Topology& topology) {
  return TopologyValidator(topology).run();
}

std::string dimension_name(const Dimension& dim, int index) {
  if (!dim.name().empty())
    return dim.name();
  static constexpr const char* kFirstNames[] = {"x", "y", "z", "w"};
  if (index < 4)
    return kFirstNames[index];
  // Appending (rather than "d" + to_string) sidesteps a GCC 12 -Wrestrict false positive.
  std::string name = "d";
  name += std::to_string(index);
  return name;
}

}  // namespace podsim::config::internal
