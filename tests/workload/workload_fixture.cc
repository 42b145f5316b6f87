#include "workload_fixture.h"

#include <sstream>
#include <type_traits>

#include "specs.h"

namespace podsim::workload::testing {

config::ModelSpec llama3_8b() {
  return podsim::testing::llama3_8b();
}

config::ModelSpec llama3_70b() {
  return podsim::testing::llama3_70b();
}

config::ModelSpec small_moe() {
  config::ModelSpec m;
  m.name = "small-moe";
  m.layers = 4;
  m.d_model = 1024;
  m.heads = 16;
  m.kv_heads = 16;
  m.head_dim = 64;
  m.ffn_dim = 2048;
  m.vocab = 32768;
  config::MoeSpec moe;
  moe.experts = 16;
  moe.experts_per_token = 2;
  moe.shared_experts = 1;
  moe.expert_ffn_dim = 512;
  moe.first_dense_layers = 1;
  m.moe = moe;
  return m;
}

config::ModelSpec wide_model() {
  config::ModelSpec m;
  m.name = "wide";
  m.layers = 4;
  m.d_model = 16384;
  m.heads = 256;
  m.kv_heads = 256;
  m.head_dim = 64;
  m.ffn_dim = 65536;
  m.vocab = 131072;
  return m;
}

config::ServingSpec decode(const config::ModelSpec& model, uint32_t batch, uint32_t context_len,
                           config::ShardingSpec sharding) {
  config::ServingSpec s;
  s.model = model;
  s.scenario.phase = config::Phase::kDecode;
  s.scenario.batch = batch;
  s.scenario.context_len = context_len;
  s.sharding = std::move(sharding);
  return s;
}

config::ServingSpec prefill(const config::ModelSpec& model, uint32_t batch, uint32_t prompt_len,
                            config::ShardingSpec sharding) {
  config::ServingSpec s = decode(model, batch, 0, std::move(sharding));
  s.scenario.phase = config::Phase::kPrefill;
  s.scenario.prompt_len = prompt_len;
  return s;
}

MeshAxes mesh(std::vector<std::pair<std::string, uint32_t>> axes) {
  MeshAxes m;
  for (auto& [name, size] : axes) {
    m.names.push_back(name);
    m.sizes.push_back(size);
  }
  return m;
}

std::vector<const Instruction*> named(const StageProgram& stage, std::string_view suffix) {
  std::vector<const Instruction*> out;
  for (const Instruction& ins : stage.instructions) {
    if (ins.name.size() >= suffix.size() &&
        std::string_view(ins.name).substr(ins.name.size() - suffix.size()) == suffix)
      out.push_back(&ins);
  }
  return out;
}

const chip::Matmul& matmul(const Instruction& ins) {
  return std::get<chip::Matmul>(std::get<chip::Op>(ins.body));
}

const chip::Attention& attention(const Instruction& ins) {
  return std::get<chip::Attention>(std::get<chip::Op>(ins.body));
}

const config::CollectiveSpec& collective(const Instruction& ins) {
  return std::get<config::CollectiveSpec>(ins.body);
}

bool is_compute(const Instruction& ins) {
  return std::holds_alternative<chip::Op>(ins.body);
}

double wire_bytes_per_chip(const StageProgram& stage, const MeshAxes& mesh) {
  double total = 0;
  for (const Instruction& ins : stage.instructions) {
    const auto* c = std::get_if<config::CollectiveSpec>(&ins.body);
    if (c == nullptr)
      continue;
    const double n = static_cast<double>(mesh.product(c->axes));
    const double v = static_cast<double>(c->bytes);
    switch (c->kind) {
      case config::CollectiveKind::kAllGather:
      case config::CollectiveKind::kReduceScatter:
        total += v * (n - 1) / n;
        break;
      case config::CollectiveKind::kAllReduce:
        total += 2 * v * (n - 1) / n;
        break;
      case config::CollectiveKind::kAllToAll:
        total += v * (n - 1) / (n * n);
        break;
      default:
        total += v;
    }
  }
  return total;
}

std::vector<std::vector<bool>> reachability(const StageProgram& stage) {
  const size_t n = stage.instructions.size();
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
  int64_t previous_compute = -1;
  for (size_t i = 0; i < n; ++i) {
    const Instruction& ins = stage.instructions[i];
    std::vector<size_t> preds(ins.deps.begin(), ins.deps.end());
    if (is_compute(ins) && previous_compute >= 0)
      preds.push_back(static_cast<size_t>(previous_compute));
    for (size_t p : preds) {
      reach[i][p] = true;
      for (size_t j = 0; j < n; ++j)
        reach[i][j] = reach[i][j] || reach[p][j];
    }
    if (is_compute(ins))
      previous_compute = static_cast<int64_t>(i);
  }
  return reach;
}

namespace {

void print_op(std::ostream& os, const chip::Op& op) {
  std::visit(
      [&](const auto& o) {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, chip::Matmul>)
          os << "matmul " << o.batch << ' ' << o.m << ' ' << o.k << ' ' << o.n;
        else if constexpr (std::is_same_v<T, chip::Attention>)
          os << "attention " << o.batch << ' ' << o.q_len << ' ' << o.kv_len << ' ' << o.heads
             << ' ' << o.kv_heads << ' ' << o.head_dim << ' ' << o.v_head_dim << ' '
             << o.values_in_keys;
        else if constexpr (std::is_same_v<T, chip::Elementwise>)
          os << "elementwise " << o.elements << ' ' << o.flops_per_element << ' ' << o.bytes_in
             << ' ' << o.bytes_out;
        else if constexpr (std::is_same_v<T, chip::Norm>)
          os << "norm " << o.rows << ' ' << o.width;
        else if constexpr (std::is_same_v<T, chip::Reduction>)
          os << "reduction " << o.elements << ' ' << o.outputs;
        else if constexpr (std::is_same_v<T, chip::Embedding>)
          os << "embedding " << o.tokens << ' ' << o.width << ' ' << o.vocab;
        else
          os << "copy " << o.bytes;
      },
      op);
}

}  // namespace

std::string fingerprint(const Program& program) {
  std::ostringstream os;
  os << program.pipeline_axis << ' ' << program.model_flops << ' ' << program.tokens << ' '
     << program.memory_per_chip.weight_bytes << ' ' << program.memory_per_chip.kv_cache_bytes << ' '
     << program.memory_per_chip.activation_peak_bytes << '\n';
  for (const StageProgram& stage : program.stages) {
    for (const Instruction& ins : stage.instructions) {
      os << ins.name << ' ' << ins.layer << ' ' << to_string(ins.op_class) << ' ' << ins.micro_batch
         << ' ' << ins.recv_from << " deps";
      for (uint32_t d : ins.deps)
        os << ' ' << d;
      os << " | ";
      if (const auto* op = std::get_if<chip::Op>(&ins.body)) {
        print_op(os, *op);
      } else if (const auto* c = std::get_if<config::CollectiveSpec>(&ins.body)) {
        os << "collective " << static_cast<int>(c->kind) << ' ' << c->bytes;
        for (const std::string& a : c->axes)
          os << ' ' << a;
      } else {
        const auto& t = std::get<StageTransfer>(ins.body);
        os << "transfer " << t.direction << ' ' << t.bytes;
      }
      os << '\n';
    }
  }
  return os.str();
}

}  // namespace podsim::workload::testing
