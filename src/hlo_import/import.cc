// The driver: walks the entry computation in schedule order, inlining calls,
// the chosen branch of each conditional and each while body (as a loop), and
// builds the operation list (import.h).
#include "hlo_import/import.h"

#include <cctype>
#include <string>
#include <unordered_map>
#include <vector>

#include "config/diagnostics.h"
#include "config/sha256.h"
#include "hlo/parse_error.h"
#include "hlo/parser.h"
#include "hlo_import/internal.h"

namespace podsim::hlo_import {
namespace {

using hlo::Opcode;
using internal::Deps;

// Calls nested deeper than this are refused rather than risking the stack.
constexpr int kMaxCallDepth = 256;

class Importer {
 public:
  Importer(const hlo::Module& module, const topo::Pod& pod, const ImportOptions& options)
      : module_(module),
        pod_(pod),
        options_(options),
        devices_(module, pod, options.device_to_chip) {}

  Imported run() {
    if (module_.entry == hlo::kNone) {
      throw config::InputError(
          config::Diagnostic{module_.file(), "", 0, 0, "the module has no ENTRY computation"});
    }
    flatten(module_.entry_computation(), {}, 0);
    Imported out;
    config::WorkloadSpec& w = out.workload;
    w.name = std::string(module_.name);
    w.description = "HLO module '" + w.name + "' (" + std::to_string(module_.replica_count) +
                    " replicas x " + std::to_string(module_.num_partitions) + " partitions)";
    w.source_file = module_.file();
    w.mesh = internal::pod_mesh(pod_);
    w.operations = builder_.take_operations();
    w.loops = builder_.take_loops();
    if (w.operations.empty()) {
      throw config::InputError(config::Diagnostic{
          module_.file(), "", 0, 0,
          "the module has no instruction that takes time (every one is free: parameters, "
          "constants, tuples, bitcasts, collectives over one chip)"});
    }
    out.warnings = warnings_.take();
    return out;
  }

 private:
  // Plays `c`, its parameter i waiting for params[i]; what its root waits for.
  Deps flatten(const hlo::Computation& c, const std::vector<Deps>& params, int depth) {
    if (depth > kMaxCallDepth) {
      fail(c.root_instruction(),
           "computations call each other more than " + std::to_string(kMaxCallDepth) + " deep");
    }
    std::vector<Deps> value(c.instructions.size());
    std::unordered_map<hlo::InstructionId, size_t> started;  // async start -> its operation
    for (const hlo::InstructionId id : internal::schedule_order(module_, c)) {
      const hlo::Instruction& i = c.instruction(id);
      Deps data;
      for (const hlo::InstructionId o : i.operands) {
        if (module_.is_scheduled && o > id) {
          std::string m = "operand %";
          m += c.instruction(o).name;
          m += " comes after it in a scheduled module (is_scheduled=true: the text order is the ";
          m += "order the instructions run in)";
          fail(i, m);
        }
        internal::merge(data, value[static_cast<size_t>(o)]);
      }
      if (i.extra) {
        for (const hlo::InstructionId o : i.extra->control_predecessors) {
          internal::merge(data, value[static_cast<size_t>(o)]);
        }
      }
      value[static_cast<size_t>(id)] =
          play(c, id, i, std::move(data), params, started, value, depth);
    }
    return value[static_cast<size_t>(c.root)];
  }

  // Plays one instruction; what its value waits for.
  Deps play(const hlo::Computation& c, hlo::InstructionId id, const hlo::Instruction& i, Deps data,
            const std::vector<Deps>& params,
            std::unordered_map<hlo::InstructionId, size_t>& started, const std::vector<Deps>& value,
            int depth) {
    const auto operand_values = [&]() {
      std::vector<Deps> v;
      for (const hlo::InstructionId o : i.operands) {
        v.push_back(value[static_cast<size_t>(o)]);
      }
      return v;
    };
    switch (i.opcode) {
      case Opcode::kParameter: {
        const auto n = static_cast<size_t>(i.parameter_number);
        return i.parameter_number >= 0 && n < params.size() ? params[n] : Deps{};
      }
      case Opcode::kWhile: {
        if (i.body == hlo::kNone) {
          fail(i, "a while without body=");
        }
        const uint32_t trips = internal::trip_count(module_, c, i, options_);
        if (trips == 0) {
          return data;
        }
        const size_t first = builder_.size();
        Deps out = flatten(module_.computation(i.body), {data}, depth + 1);
        builder_.add_loop(std::string(i.name), first, trips);
        return out;
      }
      case Opcode::kConditional: {
        const size_t b = internal::branch_index(module_, i, options_, warnings_);
        const hlo::ComputationId branch = internal::branches(i)[b];
        Deps arg =
            b + 1 < i.operands.size() ? value[static_cast<size_t>(i.operands[b + 1])] : Deps{};
        if (!i.operands.empty()) {
          internal::merge(arg, value[static_cast<size_t>(i.operands[0])]);  // the predicate
        }
        return flatten(module_.computation(branch), {arg}, depth + 1);
      }
      case Opcode::kCall: {
        const hlo::ComputationId callee = i.to_apply != hlo::kNone ? i.to_apply
                                          : i.calls.empty()        ? hlo::kNone
                                                                   : i.calls[0];
        if (callee == hlo::kNone) {
          fail(i, "a call without to_apply=");
        }
        return flatten(module_.computation(callee), operand_values(), depth + 1);
      }
      case Opcode::kAsyncStart: {
        if (i.calls.empty()) {
          fail(i, "an async-start without calls=");
        }
        const hlo::Computation& wrapped = module_.computation(i.calls[0]);
        const hlo::Instruction& root = wrapped.root_instruction();
        if (hlo::opcode_category(root.opcode) != hlo::OpcodeCategory::kCollective) {
          // Asynchronous compute: played in place.
          return flatten(wrapped, operand_values(), depth + 1);
        }
        return start(wrapped, root, i, std::move(data), id, started);
      }
      case Opcode::kAllReduceStart:
      case Opcode::kAllGatherStart:
      case Opcode::kCollectivePermuteStart:
        return start(c, i, i, std::move(data), id, started);
      case Opcode::kSend:
      case Opcode::kRecv:
      case Opcode::kSendDone:
      case Opcode::kRecvDone:
        fail(i, "send and recv are not supported (docs/hlo.md, \"Running a module\")");
      case Opcode::kCopyStart:
      case Opcode::kCopyDone:
      case Opcode::kAsyncUpdate:
        return data;
      default:
        break;
    }
    const hlo::OpcodeCategory category = hlo::opcode_category(i.opcode);
    if (category == hlo::OpcodeCategory::kAsyncDone) {
      hlo::InstructionId s = i.operands.empty() ? hlo::kNone : i.operands[0];
      while (s != hlo::kNone && c.instruction(s).opcode == Opcode::kAsyncUpdate) {
        s = c.instruction(s).operands.empty() ? hlo::kNone : c.instruction(s).operands[0];
      }
      if (const auto it = started.find(s); it != started.end()) {
        builder_.wait_for(it->second);
      }
      return data;
    }
    if (category == hlo::OpcodeCategory::kCollective) {
      const auto spec = internal::collective_spec(module_, c, i, i, devices_, pod_);
      if (!spec) {
        return data;
      }
      internal::check_limits(module_, i, *spec);
      return {builder_.add(std::string(i.name), *spec, data, true, i.op_name)};
    }
    const std::vector<internal::CostedOp> ops = internal::compute_ops(module_, c, i, warnings_);
    if (ops.empty()) {
      return data;
    }
    size_t last = 0;
    for (const internal::CostedOp& op : ops) {
      internal::check_limits(module_, i, op.op);
      last = builder_.add(std::string(i.name) + op.suffix, op.op, data, true, i.op_name);
    }
    return {last};
  }

  // An async collective: started here, waited for at its done.
  Deps start(const hlo::Computation& c, const hlo::Instruction& collective,
             const hlo::Instruction& at, Deps data, hlo::InstructionId id,
             std::unordered_map<hlo::InstructionId, size_t>& started) {
    const auto spec = internal::collective_spec(module_, c, collective, at, devices_, pod_);
    if (!spec) {
      return data;
    }
    internal::check_limits(module_, at, *spec);
    const size_t op = builder_.add(std::string(at.name), *spec, data, false, at.op_name);
    started[id] = op;
    return {op};
  }

  [[noreturn]] void fail(const hlo::Instruction& i, const std::string& message) const {
    internal::fail(module_, i, message);
  }

  const hlo::Module& module_;
  const topo::Pod& pod_;
  const ImportOptions& options_;
  internal::DeviceMap devices_;
  internal::OpListBuilder builder_;
  internal::Warnings warnings_;
};

}  // namespace

Imported import_module(const hlo::Module& module, const topo::Pod& pod,
                       const ImportOptions& options) {
  return Importer(module, pod, options).run();
}

Imported load_hlo_workload(const std::filesystem::path& path, const topo::Pod& pod,
                           const ImportOptions& options) {
  std::string text =
      config::read_file_to_string(path, hlo::kMaxHloTextBytes, config::FileContents::kText);
  const std::string sha = config::sha256_hex(text);
  std::optional<hlo::Module> module;
  try {
    module.emplace(hlo::parse_module(std::move(text), path.string()));
  } catch (const hlo::ParseError& e) {
    throw config::InputError(config::Diagnostic{e.file(), "", e.line(), e.column(), e.message()});
  }
  Imported imported = import_module(*module, pod, options);
  imported.workload.source_sha256 = sha;
  return imported;
}

std::vector<uint32_t> parse_device_list(const std::string& text, const std::string& origin) {
  std::vector<uint32_t> ids;
  size_t i = 0;
  const auto separator = [](char ch) {
    return ch == ',' || std::isspace(static_cast<unsigned char>(ch)) != 0;
  };
  while (i < text.size()) {
    if (separator(text[i])) {
      ++i;
      continue;
    }
    uint64_t v = 0;
    const size_t begin = i;
    while (i < text.size() && !separator(text[i])) {
      if (!std::isdigit(static_cast<unsigned char>(text[i])) || v > UINT32_MAX / 10) {
        throw config::InputError(config::Diagnostic{
            origin, "", 0, 0,
            "expected chip ids (0, 1, ...) separated by commas or spaces, found '" +
                text.substr(
                    begin,
                    std::min<size_t>(text.find_first_of(", \t\n", begin), text.size()) - begin) +
                "'"});
      }
      v = v * 10 + static_cast<uint64_t>(text[i] - '0');
      ++i;
    }
    if (v > UINT32_MAX) {
      throw config::InputError(config::Diagnostic{origin, "", 0, 0, "a chip id beyond 2^32"});
    }
    ids.push_back(static_cast<uint32_t>(v));
  }
  if (ids.empty()) {
    throw config::InputError(config::Diagnostic{origin, "", 0, 0, "no chip ids"});
  }
  return ids;
}

}  // namespace podsim::hlo_import
