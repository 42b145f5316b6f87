#include "cli/trace_option.h"

#include <spdlog/logger.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "engine/breakdown.h"
#include "report/output_file.h"

namespace podsim::cli {

std::optional<TraceRequest> parse_trace_request(const std::optional<std::string>& file,
                                                const std::optional<std::string>& chips,
                                                uint32_t chip_count) {
  if (!file) {
    if (chips) {
      throw UsageError("--trace-chips needs --trace FILE");
    }
    return std::nullopt;
  }
  TraceRequest r;
  r.file = *file;
  const std::filesystem::path path(r.file);
  if (r.file.empty() || !path.has_filename()) {
    throw UsageError("--trace: expected a file name, got '" + r.file + "'");
  }
  // Checked now so that a typo does not cost a whole simulation first.
  if (path.has_parent_path() && !std::filesystem::is_directory(path.parent_path())) {
    throw UsageError("--trace: no such directory: " + path.parent_path().string());
  }
  if (chips) {
    try {
      r.chips = report::parse_trace_chips(*chips, chip_count);
    } catch (const report::TraceChipsError& e) {
      throw UsageError(e.what());
    }
  }
  return r;
}

std::string parse_trace_layer(const std::string& layer, uint32_t layers) {
  if (layer == "embed" || layer == "head" || layer == "other") {
    return layer;
  }
  const std::string digits = !layer.empty() && layer[0] == 'L' ? layer.substr(1) : layer;
  const bool number = !digits.empty() && digits.size() <= 9 &&
                      digits.find_first_not_of("0123456789") == std::string::npos;
  if (!number) {
    throw UsageError(
        "--trace-units: expected a layer (a number or L<n>, embed, head or other), got '" + layer +
        "'");
  }
  const auto n = static_cast<uint32_t>(std::stoul(digits));
  if (n >= layers) {
    throw UsageError("--trace-units: layer " + std::to_string(n) +
                     " does not exist: the model has " + std::to_string(layers) + " layers (0 to " +
                     std::to_string(layers - 1) + ")");
  }
  std::string key = "L";
  key += std::to_string(n);
  return key;
}

void write_step_trace(Context& ctx, PendingOutputs& pending, const TraceRequest& request,
                      const report::StepTraceInputs& inputs) {
  const report::TraceChipChoice choice =
      report::choose_trace_chips(request.chips, inputs.pod, inputs.step);
  for (size_t i = 0; i < choice.notes.size(); ++i) {
    if (choice.limited && i + 1 == choice.notes.size()) {
      ctx.log->warn("{}", choice.notes[i]);  // the limit: worth a warning
    } else {
      ctx.log->info("trace: {}", choice.notes[i]);
    }
  }
  if (!inputs.unit_layer.empty()) {
    // A pipeline stage holds some layers only: say so rather than draw empty tracks.
    const auto& step = inputs.step;
    const auto& prog = inputs.program.stages[step.critical_stage].instructions;
    const bool has = std::any_of(prog.begin(), prog.end(), [&](const workload::Instruction& i) {
      return std::holds_alternative<chip::Op>(i.body) &&
             engine::breakdown_layer_key(i) == inputs.unit_layer;
    });
    if (!has) {
      ctx.log->warn(
          "--trace-units {}: the critical chip {} (pipeline stage {}) runs no compute of that "
          "layer; its unit tracks are empty",
          inputs.unit_layer, step.critical_chip, step.critical_stage);
    }
  }
  std::ostringstream text;
  report::render_step_trace(inputs, choice, text);
  pending.add(request.file, text.view());  // no copy: traces can be large
  ctx.log->info("trace of {} chips for {}", choice.indices.size(), request.file);
}

void write_op_list_trace(Context& ctx, PendingOutputs& pending, const TraceRequest& request,
                         const report::RunInputs& run, const engine::OpListResult& result) {
  if (request.chips.given()) {
    ctx.log->warn("--trace-chips is ignored for an operation-list workload (no per-chip tracks)");
  }
  std::ostringstream text;
  report::render_op_list_trace(run, result, text);
  pending.add(request.file, text.view());  // no copy: traces can be large
  ctx.log->info("trace for {}", request.file);
}

}  // namespace podsim::cli
