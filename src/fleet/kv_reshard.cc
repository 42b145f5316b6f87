#include "fleet/kv_reshard.h"

#include <algorithm>
#include <map>
#include <utility>

#include "chip/ops.h"
#include "engine/workload_mesh.h"

namespace podsim::fleet {
namespace {

[[noreturn]] void unsupported(const config::WorkloadSpec& w, const std::string& why) {
  throw KvLayoutError("'" + w.source_file + "': the KV cache resharding between prefill and " +
                      "decode layouts " + why);
}

}  // namespace

uint64_t KvLayout::group_bytes_per_token(uint32_t g) const {
  uint64_t sum = 0;
  for (uint32_t c = 0; c < chips.size(); ++c)
    if (chips[c].group == g)
      sum += chip_bytes_per_token(c);
  return sum;
}

KvLayout kv_layout(const topo::Pod& pod, const config::WorkloadSpec& workload) {
  if (!workload.serving)
    unsupported(workload, "needs a serving workload (model and sharding)");
  const config::ServingSpec& serving = *workload.serving;
  const config::ModelSpec& model = serving.model;
  const config::ShardingSpec& sh = serving.sharding;
  if (sh.tensor_axes.size() > 1)
    unsupported(workload, "covers one tensor axis (1D tensor parallelism), not " +
                              std::to_string(sh.tensor_axes.size()));
  if (sh.weight_gathered || !sh.weight_gathered_axes.empty())
    unsupported(workload, "does not cover weight-gathered sharding");
  if (!sh.expert_axes.empty())
    unsupported(workload, "does not cover expert axes");
  const topo::DeviceMesh mesh = engine::workload_mesh(pod, workload);
  // Every chip must have its place: each mesh axis a tensor, data or
  // pipeline axis, and the axes over every chip of the slice.
  uint64_t covered = 1;
  for (const topo::MeshAxisSpec& a : mesh.axes()) {
    const bool used =
        (!sh.tensor_axes.empty() && a.name == sh.tensor_axes[0]) || a.name == sh.pipeline_axis ||
        std::find(sh.data_axes.begin(), sh.data_axes.end(), a.name) != sh.data_axes.end();
    if (!used)
      unsupported(workload, "needs every mesh axis to be a tensor, data or pipeline axis; '" +
                                a.name + "' is none");
    covered *= mesh.axis_size(a.name);
  }
  if (covered != pod.chip_count())
    unsupported(workload, "needs the mesh axes to cover every chip of the slice (" +
                              std::to_string(covered) + " of " + std::to_string(pod.chip_count()) +
                              ")");

  KvLayout out;
  out.layers = model.layers;
  const bool mla = model.mla.has_value();
  out.units = mla ? 1 : model.kv_heads;
  out.unit_bytes =
      chip::bytes_of(mla ? model.mla->cache_width() : 2ull * model.head_dim, model.kv_dtype);
  const std::vector<std::string> pipe =
      sh.pipeline_axis.empty() ? std::vector<std::string>{} : std::vector{sh.pipeline_axis};
  out.stages = pipe.empty() ? 1 : mesh.axis_size(sh.pipeline_axis);
  if (out.layers == 0 || out.layers % out.stages != 0)
    unsupported(workload, "needs the layers (" + std::to_string(out.layers) +
                              ") to split evenly over the pipeline stages (" +
                              std::to_string(out.stages) + ")");
  uint32_t data = 1;
  for (const std::string& a : sh.data_axes)
    data *= mesh.axis_size(a);
  const uint32_t tensor = sh.tensor_axes.empty() ? 1 : mesh.axis_size(sh.tensor_axes[0]);
  const bool by_batch = sh.kv_layout == config::KvLayout::kByBatch && tensor > 1;
  out.groups = by_batch ? data * tensor : data;
  if (!by_batch && !mla && out.units % tensor != 0 && tensor % out.units != 0)
    unsupported(workload, "needs the KV heads (" + std::to_string(out.units) +
                              ") to split or replicate evenly over the tensor axis's " +
                              std::to_string(tensor) + " chips (padded heads are not covered)");
  out.chips.resize(pod.chip_count());
  for (topo::ChipId c = 0; c < pod.chip_count(); ++c) {
    KvShard& s = out.chips[c];
    s.stage = pipe.empty() ? 0 : mesh.index_in_group(c, pipe);
    const uint32_t d = sh.data_axes.empty() ? 0 : mesh.index_in_group(c, sh.data_axes);
    const uint32_t t = tensor == 1 ? 0 : mesh.index_in_group(c, sh.tensor_axes);
    s.group = by_batch ? d * tensor + t : d;
    if (mla || by_batch || tensor == 1) {
      s.first_unit = 0;
      s.units = out.units;
    } else if (out.units % tensor == 0) {
      s.units = out.units / tensor;
      s.first_unit = t * s.units;
    } else {
      s.units = 1;
      s.first_unit = t / (tensor / out.units);
    }
  }
  return out;
}

std::vector<KvPairBytes> kv_reshard(const KvLayout& from, uint32_t src_group, const KvLayout& to,
                                    uint32_t dst_group) {
  if (from.layers != to.layers || from.units != to.units || from.unit_bytes != to.unit_bytes)
    throw KvLayoutError("the prefill and decode replicas must cache one model's KV: layers " +
                        std::to_string(from.layers) + " and " + std::to_string(to.layers) +
                        ", units per layer " + std::to_string(from.units) + " and " +
                        std::to_string(to.units) + ", bytes per unit " +
                        std::to_string(from.unit_bytes) + " and " + std::to_string(to.unit_bytes));
  if (src_group >= from.groups || dst_group >= to.groups)
    throw KvLayoutError("a sequence group is out of range");
  // Holders of each (source stage, unit): the source group's chips, by id.
  std::vector<std::vector<uint32_t>> holders(size_t{from.stages} * from.units);
  for (uint32_t c = 0; c < from.chips.size(); ++c) {
    const KvShard& s = from.chips[c];
    if (s.group != src_group)
      continue;
    for (uint32_t u = s.first_unit; u < s.first_unit + s.units; ++u)
      holders[size_t{s.stage} * from.units + u].push_back(c);
  }
  // Round robin over each (source stage, unit)'s holders: the k-th layer-unit
  // any destination chip needs from them comes from holder k mod holders.
  std::vector<uint32_t> next(holders.size(), 0);
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> units;  // (dst, src) -> layer-units
  for (uint32_t d = 0; d < to.chips.size(); ++d) {
    const KvShard& s = to.chips[d];
    if (s.group != dst_group)
      continue;
    const uint32_t first_layer = s.stage * to.layers_per_stage();
    for (uint32_t l = first_layer; l < first_layer + to.layers_per_stage(); ++l) {
      const uint32_t stage = l / from.layers_per_stage();
      for (uint32_t u = s.first_unit; u < s.first_unit + s.units; ++u) {
        const std::vector<uint32_t>& h = holders[size_t{stage} * from.units + u];
        if (h.empty())
          throw KvLayoutError("no chip of the source group holds layer " + std::to_string(l) +
                              " unit " + std::to_string(u));
        uint32_t& k = next[size_t{stage} * from.units + u];
        ++units[{d, h[k % h.size()]}];
        ++k;
      }
    }
  }
  std::vector<KvPairBytes> out;
  out.reserve(units.size());
  for (const auto& [pair, n] : units)
    out.push_back(KvPairBytes{pair.second, pair.first, n * from.unit_bytes});
  return out;
}

}  // namespace podsim::fleet
