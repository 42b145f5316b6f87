// The KV resharding pattern between prefill and decode layouts
// (fleet/kv_reshard.h): a hand-computed small case, conservation (every
// destination chip receives exactly what it holds), the round robin over
// replicated heads, data-parallel groups, agreement with the workload
// layer's own KV bytes per chip, and the refusals.
#include "fleet/kv_reshard.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "engine/workload_mesh.h"
#include "workload/program.h"

namespace podsim::fleet {
namespace kv_reshard_test {

std::filesystem::path source_dir() {
  const char* env = std::getenv("PODSIM_SOURCE_DIR");
  return env != nullptr ? env : ".";
}

config::PodSpec topology(const char* name) {
  return config::load_topology_file(source_dir() / "topologies" / name);
}

// A small GQA model (8 KV heads of 128, `layers` layers, bf16) sharded as
// `mesh_and_sharding` says.
config::WorkloadSpec small(const config::PodSpec& pod, const std::string& mesh_and_sharding,
                           uint32_t layers = 4) {
  std::string text = mesh_and_sharding;
  text += "\nname: \"small\"\nmodel { name: \"small\" layers: ";
  text += std::to_string(layers);
  text +=
      " d_model: 1024 heads: 16 kv_heads: 8 head_dim: 64 ffn_dim: 2048 vocab: 1024 "
      "weight_dtype: BF16 activation_dtype: BF16 kv_dtype: BF16 }\n"
      "scenario { phase: DECODE batch: 64 context_len: 127 }\n";
  return config::parse_workload_text(text, "small.textproto", pod);
}

// One unit: K and V of one 64-wide head in bf16.
constexpr uint64_t kUnit = 2 * 64 * 2;

TEST(KvReshard, HandComputedTensorToTensorAndPipeline) {
  const config::PodSpec spec = topology("v5e-2x2.textproto");
  const topo::Pod pod(spec);
  // Source: 4-way tensor parallel over x and y (snake order: chip ids 0, 1,
  // 3, 2 are tensor indices 0..3), 2 heads per chip, every layer.
  const KvLayout from =
      kv_layout(pod, small(spec,
                           "mesh { axes { name: \"model\" dims: [\"x\", \"y\"] } }\n"
                           "sharding { tensor_axes: \"model\" }"));
  // Destination: 2-way tensor over x, 2 pipeline stages over y: chip
  // (x, y) = id x + 2y holds heads [4x, 4x + 4) of layers [2y, 2y + 2).
  const KvLayout to = kv_layout(
      pod, small(spec,
                 "mesh { axes { name: \"model\" dims: [\"x\"] } axes { name: \"stage\" dims: "
                 "[\"y\"] } }\nsharding { tensor_axes: \"model\" pipeline_axis: \"stage\" }"));
  ASSERT_EQ(from.groups, 1u);
  EXPECT_EQ(from.chips[2].first_unit, 6u);  // chip (0, 1): tensor index 3
  EXPECT_EQ(to.stages, 2u);
  EXPECT_EQ(to.chips[2].stage, 1u);
  // Destination chip 0 (heads 0-3, layers 0-1): heads 0, 1 from source chip
  // 0 and heads 2, 3 from chip 1, 2 layers x 2 heads each. Chip 1 (heads
  // 4-7): source tensor indices 2 and 3, chips 3 and 2. Chips 2 and 3 the
  // same heads for layers 2-3.
  const std::vector<KvPairBytes> want{{0, 0, 4 * kUnit}, {1, 0, 4 * kUnit}, {2, 1, 4 * kUnit},
                                      {3, 1, 4 * kUnit}, {0, 2, 4 * kUnit}, {1, 2, 4 * kUnit},
                                      {2, 3, 4 * kUnit}, {3, 3, 4 * kUnit}};
  EXPECT_EQ(kv_reshard(from, 0, to, 0), want);
}

// Every destination chip receives exactly what it holds, whatever the pair
// of layouts; the total is the whole group's cache.
void expect_conserved(const KvLayout& from, const KvLayout& to) {
  for (uint32_t gs = 0; gs < from.groups; ++gs) {
    for (uint32_t gd = 0; gd < to.groups; ++gd) {
      std::map<uint32_t, uint64_t> received;
      uint64_t total = 0;
      for (const KvPairBytes& p : kv_reshard(from, gs, to, gd)) {
        EXPECT_EQ(from.chips[p.src].group, gs);
        received[p.dst] += p.bytes_per_token;
        total += p.bytes_per_token;
      }
      for (uint32_t d = 0; d < to.chips.size(); ++d)
        EXPECT_EQ(received[d], to.chips[d].group == gd ? to.chip_bytes_per_token(d) : 0u)
            << "destination chip " << d;
      EXPECT_EQ(total, to.group_bytes_per_token(gd));
    }
  }
}

TEST(KvReshard, ConservedAcrossShapesChipsAndShardings) {
  const config::PodSpec v5e16 = topology("v5e-4x4.textproto");
  const config::PodSpec v5e4 = topology("v5e-2x2.textproto");
  const topo::Pod p16(v5e16);
  const topo::Pod p4(v5e4);
  const std::vector<KvLayout> layouts{
      kv_layout(p16, small(v5e16,
                           "mesh { axes { name: \"m\" dims: [\"x\", \"y\"] } }\n"
                           "sharding { tensor_axes: \"m\" }")),  // heads on 2 chips each
      kv_layout(p16, small(v5e16,
                           "mesh { axes { name: \"m\" dims: [\"x\"] } axes { name: \"d\" dims: "
                           "[\"y\"] } }\nsharding { tensor_axes: \"m\" data_axes: \"d\" }")),
      kv_layout(p16, small(v5e16,
                           "mesh { axes { name: \"m\" dims: [\"x\"] } axes { name: \"d\" dims: "
                           "[\"y\"] } }\nsharding { tensor_axes: \"m\" data_axes: \"d\" "
                           "kv_layout: KV_BY_BATCH }",
                           4)),
      kv_layout(p4, small(v5e4,
                          "mesh { axes { name: \"m\" dims: [\"x\", \"y\"] } }\n"
                          "sharding { tensor_axes: \"m\" }")),
      kv_layout(p4, small(v5e4,
                          "mesh { axes { name: \"m\" dims: [\"x\"] } axes { name: \"s\" dims: "
                          "[\"y\"] } }\nsharding { tensor_axes: \"m\" pipeline_axis: \"s\" }"))};
  EXPECT_EQ(layouts[1].groups, 4u);
  EXPECT_EQ(layouts[2].groups, 16u);
  for (const KvLayout& from : layouts)
    for (const KvLayout& to : layouts)
      expect_conserved(from, to);
}

TEST(KvReshard, ReplicatedHeadsSpreadOverTheirHolders) {
  // 16-way tensor parallel, 8 KV heads: each head on 2 chips; a destination
  // chip's head comes half from each holder (layers alternate).
  const config::PodSpec spec = topology("v5e-4x4.textproto");
  const topo::Pod pod(spec);
  const KvLayout l = kv_layout(pod, small(spec,
                                          "mesh { axes { name: \"m\" dims: [\"x\", \"y\"] } }\n"
                                          "sharding { tensor_axes: \"m\" }",
                                          8));
  std::map<uint32_t, uint64_t> sent;
  for (const KvPairBytes& p : kv_reshard(l, 0, l, 0))
    sent[p.src] += p.bytes_per_token;
  ASSERT_EQ(sent.size(), 16u);
  for (const auto& [chip, bytes] : sent)
    EXPECT_EQ(bytes, 8 * kUnit) << chip;  // 16 chips x 8 layers x 1 head, over 16 senders
}

TEST(KvReshard, AgreesWithTheWorkloadLayersKvBytesPerChip) {
  // The lowered step's KV cache per chip (one sequence per data group,
  // kv_len tokens) is what the layout says each chip holds.
  const config::PodSpec spec = topology("v5e-4x4.textproto");
  const topo::Pod pod(spec);
  for (const char* sharding :
       {"mesh { axes { name: \"m\" dims: [\"x\", \"y\"] } }\nsharding { tensor_axes: \"m\" }",
        "mesh { axes { name: \"m\" dims: [\"x\"] } axes { name: \"d\" dims: [\"y\"] } }\n"
        "sharding { tensor_axes: \"m\" data_axes: \"d\" }",
        "mesh { axes { name: \"m\" dims: [\"x\"] } axes { name: \"s\" dims: [\"y\"] } }\n"
        "sharding { tensor_axes: \"m\" pipeline_axis: \"s\" }"}) {
    config::WorkloadSpec w = small(spec, sharding, 8);
    const KvLayout l = kv_layout(pod, w);
    w.serving->scenario.batch = l.groups;
    w.serving->scenario.context_len = 127;  // kv_len 128
    const workload::Program prog =
        workload::lower(*w.serving, engine::mesh_axes(engine::workload_mesh(pod, w)));
    EXPECT_EQ(prog.memory_per_chip.kv_cache_bytes, 128 * l.chip_bytes_per_token(0)) << sharding;
  }
}

TEST(KvReshard, RefusesWhatItDoesNotCover) {
  const config::PodSpec spec = topology("v5e-2x2.textproto");
  const topo::Pod pod(spec);
  EXPECT_THROW(kv_layout(pod, small(spec,
                                    "mesh { axes { name: \"a\" dims: [\"x\"] } axes { name: \"b\" "
                                    "dims: [\"y\"] } }\nsharding { tensor_axes: [\"a\", \"b\"] }")),
               KvLayoutError);
  const KvLayout four = kv_layout(pod, small(spec,
                                             "mesh { axes { name: \"m\" dims: [\"x\", \"y\"] } }\n"
                                             "sharding { tensor_axes: \"m\" }"));
  const KvLayout eight = kv_layout(pod, small(spec,
                                              "mesh { axes { name: \"m\" dims: [\"x\", \"y\"] } }\n"
                                              "sharding { tensor_axes: \"m\" }",
                                              8));
  EXPECT_THROW(kv_reshard(four, 0, eight, 0), KvLayoutError);  // not one model
  EXPECT_THROW(kv_reshard(four, 1, four, 0), KvLayoutError);   // no such group
}

}  // namespace kv_reshard_test
}  // namespace podsim::fleet
