// The chip layer: how long one operation takes on one chip.
//
// One interface, four models (chosen per run with --compute):
//  - roofline (default, roofline.h): max(FLOPs / achievable FLOP/s, HBM bytes
//    / HBM bandwidth) + a per-op overhead, with the matrix units' padding.
//  - systolic (systolic.h): a cycle model of weight-stationary systolic
//    arrays (tiling, weight loads, fill and drain, HBM stalls).
//  - table (table_model.h): measured times from a CSV, interpolated, falling
//    back to the roofline outside the table.
//  - tensorcore (tensorcore/tensorcore_model.h): each op a tiled kernel
//    played through DMA, VMEM, matrix units, vector unit and issue.
// All start from the same work (ops.h). A model holds only numbers derived
// from the chip spec (no references to it) and is immutable after
// construction, so one model may serve many simulations and threads; time()
// does not allocate.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "chip/ops.h"
#include "chip/unit_timeline.h"
#include "config/op_table_spec.h"
#include "config/topology_spec.h"
#include "sim/time.h"

namespace podsim::chip {

// What real chips lose against their published figures; ideal by default
// (the topology's calibration section may set them). Each factor is in
// (0, 1].
struct Efficiency {
  double mxu = 1.0;       // fraction of the MXU peak reached by well-shaped work
  double hbm = 1.0;       // fraction of the HBM bandwidth reached
  double vector = 1.0;    // fraction of the vector unit's rate reached
  sim::Time op_overhead;  // added to every operation (launch, sync); >= 0
  // Added to the HBM time of every operation that moves HBM bytes (the
  // stream's DMA issue and first bytes); >= 0. Hidden, like the bytes, under
  // a longer compute time.
  sim::Time hbm_latency;
  // MXU cycles each round of weight tiles (one tile per matrix unit) costs
  // beyond streaming its rows: pipeline fill and drain not hidden between
  // tiles; >= 0.
  double mxu_tile_overhead_cycles = 0;
};

// The chip's knobs of a pod's calibration.
Efficiency efficiency_of(const config::CalibrationSpec& calibration);

// Where an operation's time went on the chip's units, along its critical
// path (docs/tensorcore.md, "Unit breakdown"): the parts add up to
// OpTiming::time exactly, in integer picoseconds. Work hidden under a
// longer unit's (vector work beside a longer matrix-unit stream, transfers
// under compute) is not counted again.
struct UnitTimes {
  sim::Time mxu;       // the matrix units: streaming, weight loads, fill and drain
  sim::Time vector;    // the vector unit, where it is longer than the matrix units
  sim::Time issue;     // the scalar core issuing the kernel's steps (tensorcore)
  sim::Time dma_wait;  // waiting on HBM transfers the units' work does not cover
  sim::Time overhead;  // the per-operation overhead (calibration op_overhead_ns)

  sim::Time total() const { return mxu + vector + issue + dma_wait + overhead; }
  UnitTimes& operator+=(const UnitTimes& o) {
    mxu += o.mxu;
    vector += o.vector;
    issue += o.issue;
    dma_wait += o.dma_wait;
    overhead += o.overhead;
    return *this;
  }
  friend bool operator==(const UnitTimes&, const UnitTimes&) = default;
};

// Elementwise work fused into a matmul's output, as XLA fuses an
// activation, a gate or a residual add into the matmul that produces its
// input (engine/fusion.h): the matmul's result stays in VMEM for the vector
// unit instead of crossing HBM twice.
struct Epilogue {
  double vector_flops = 0;   // the fused op's vector work
  uint64_t read_bytes = 0;   // its other operands (a residual), read from HBM
  uint64_t write_bytes = 0;  // its output, written instead of the matmul's
  friend bool operator==(const Epilogue&, const Epilogue&) = default;
};

// The work an operation did on the chip's units, for its energy
// (docs/energy.md): useful matrix-unit operations by the dtype they ran in
// (no padding), vector operations, and the bytes it moved through HBM and
// VMEM. HBM bytes are the op's own; --compute tensorcore counts its
// kernel's traffic instead (re-reads and whole granules), and the VMEM
// bytes that traffic moves (each byte written into VMEM and read out once);
// the other models leave VMEM at 0.
struct WorkDone {
  double mxu_bf16_flops = 0;
  double mxu_int8_ops = 0;
  double mxu_fp8_flops = 0;
  double vector_flops = 0;
  double hbm_bytes = 0;
  double vmem_bytes = 0;

  WorkDone& operator+=(const WorkDone& o) {
    mxu_bf16_flops += o.mxu_bf16_flops;
    mxu_int8_ops += o.mxu_int8_ops;
    mxu_fp8_flops += o.mxu_fp8_flops;
    vector_flops += o.vector_flops;
    hbm_bytes += o.hbm_bytes;
    vmem_bytes += o.vmem_bytes;
    return *this;
  }
  friend bool operator==(const WorkDone&, const WorkDone&) = default;
};

struct OpTiming {
  enum class Bound : uint8_t { kCompute, kMemory, kOverhead };
  enum class Source : uint8_t {
    kModel,              // roofline or systolic
    kTableExact,         // a table row with the op's key
    kTableInterpolated,  // between two table rows
    kTableFallback,      // outside the table: the roofline's answer
  };

  sim::Time time;          // the op's duration, overhead included
  sim::Time compute_time;  // MXU or vector time alone, whichever is longer
  sim::Time memory_time;   // HBM time alone
  // kOverhead when the per-op overhead exceeds both compute and memory time;
  // otherwise the longer of the two. For table times, the roofline's verdict.
  Bound bound = Bound::kCompute;
  double flops = 0;                 // useful FLOPs, MXU and vector (OpWork::flops())
  uint64_t bytes = 0;               // HBM bytes read and written
  double achieved_flops_per_s = 0;  // flops / time
  // Useful MXU FLOPs / (the MXU peak for the op's rate x time): the share of
  // the matrix units' capacity the op used over its duration, in [0, 1].
  double mxu_utilisation = 0;
  uint64_t cycles = 0;  // systolic, ops with MXU work: MXU clock cycles; else 0
  UnitTimes units;      // time's parts by unit; units.total() == time
  WorkDone work;        // what the op did, for its energy
  Source source = Source::kModel;
  // Table model: set on the first fallback of this op's kind in this model
  // instance, so the caller can say so once per kind.
  bool first_fallback = false;

  bool from_table() const {
    return source == Source::kTableExact || source == Source::kTableInterpolated;
  }
};

class ComputeModel {
 public:
  virtual ~ComputeModel() = default;
  ComputeModel(const ComputeModel&) = delete;
  ComputeModel& operator=(const ComputeModel&) = delete;

  virtual OpTiming time(const Op& op) const = 0;
  virtual std::string_view name() const = 0;
  // How the model ran an attention kernel on the units, where it chooses
  // (tensorcore: "cache-stationary", "queries-stationary", "vector-unit");
  // "" for models with one fixed answer.
  virtual std::string_view attention_mapping(const Attention&) const { return {}; }
  // How the op used the units over its time (unit_timeline.h), for traces:
  // the pipeline where the model plays one, else compute and HBM
  // overlapped from the start. Slices lie within [0, time(op).time].
  virtual std::vector<UnitSlice> unit_timeline(const Op& op) const {
    return overlapped_timeline(time(op));
  }
  // The matmul `mm` with `epilogue` fused into its output, where the model
  // plays fusion (tensorcore); nullopt otherwise, the two then run as
  // separate operations. The timing's FLOPs and bytes are the fused
  // kernel's.
  virtual std::optional<OpTiming> fused_time(const Matmul&, const Epilogue&) const {
    return std::nullopt;
  }
  // unit_timeline() of the fused kernel; fused_time() must have given a timing.
  virtual std::vector<UnitSlice> fused_timeline(const Matmul& mm, const Epilogue&) const {
    return unit_timeline(Op{mm});
  }

 protected:
  ComputeModel() = default;
};

enum class ComputeModelKind : uint8_t { kRoofline, kSystolic, kTable, kTensorCore };

// Builds the model `kind` names. The model copies what it needs from `chip`
// and `table` (neither must outlive it). Throws std::invalid_argument when an
// efficiency is outside (0, 1], the overhead is negative, the chip lacks a
// bf16 peak, HBM bandwidth or matrix units, or kind is kTable without a
// table.
std::unique_ptr<ComputeModel> make_compute_model(ComputeModelKind kind,
                                                 const config::ChipSpec& chip,
                                                 const Efficiency& efficiency,
                                                 const config::OpTableSpec* table = nullptr);

std::string_view to_string(ComputeModelKind kind);
// "roofline", "systolic", "table", "tensorcore"
std::optional<ComputeModelKind> parse_compute_model(std::string_view name);

std::string_view to_string(OpTiming::Bound bound);  // "compute", "memory", "overhead"

}  // namespace podsim::chip
