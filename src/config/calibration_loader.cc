#include "config/calibration_loader.h"

#include <utility>

#include "config/internal/calibration_validator.h"
#include "config/internal/input_parser.h"
#include "config/internal/sha256.h"
#include "config/internal/topology_converter.h"
#include "podsim/calibration.pb.h"

namespace podsim::config {
namespace {

using internal::FieldIssue;
using internal::FieldPath;
using internal::InputFormat;
using internal::ParsedInput;

// The --set prefix of the fields a profile replaces.
constexpr std::string_view kCalibrationOverride = "topology.calibration.";

CalibrationSourcesSpec to_sources_spec(const CalibrationSources& s) {
  return CalibrationSourcesSpec{
      s.ici_link_efficiency(),   s.dcn_efficiency(), s.collective_overhead_ns(),
      s.mxu_efficiency(),        s.hbm_efficiency(), s.op_overhead_ns(),
      s.ring_step_overhead_ns(), s.hbm_latency_ns(), s.mxu_tile_overhead_cycles()};
}

CalibrationProfileSpec parse(InputFormat format, std::string_view contents,
                             std::string source_name) {
  podsim::CalibrationProfile message;
  const ParsedInput parsed = ParsedInput::parse(format, contents, source_name, message);
  parsed.throw_if_invalid(internal::validate_calibration_profile(message));
  CalibrationProfileSpec spec;
  spec.name = message.name();
  spec.description = message.description();
  spec.source_file = std::move(source_name);
  spec.source_sha256 = internal::sha256_hex(contents);
  spec.chip = message.chip();
  const Diagnostic chip_at = parsed.diagnostic(FieldIssue{FieldPath()("chip"), ""});
  spec.chip_line = chip_at.line;
  spec.chip_column = chip_at.column;
  spec.calibration = internal::to_calibration_spec(message.calibration());
  spec.calibration.profile = spec.name;
  spec.calibration.profile_file = spec.source_file;
  spec.calibration.profile_sha256 = spec.source_sha256;
  spec.sources = to_sources_spec(message.sources());
  return spec;
}

Diagnostic profile_diagnostic(const CalibrationProfileSpec& profile, std::string field,
                              std::string message) {
  Diagnostic d;
  d.file = profile.source_file;
  d.field = std::move(field);
  d.message = std::move(message);
  return d;
}

}  // namespace

CalibrationProfileSpec parse_calibration_text(std::string_view text, std::string source_name) {
  return parse(InputFormat::kText, text, std::move(source_name));
}

CalibrationProfileSpec parse_calibration_binary(std::string_view bytes, std::string source_name) {
  return parse(InputFormat::kBinary, bytes, std::move(source_name));
}

CalibrationProfileSpec load_calibration_file(const std::filesystem::path& path) {
  return parse(internal::format_of(path), read_file_to_string(path), path.string());
}

void apply_calibration(const CalibrationProfileSpec& profile, PodSpec& pod) {
  if (profile.chip != pod.chip.name) {
    Diagnostic d = profile_diagnostic(
        profile, "chip",
        "the profile is for chip \"" + profile.chip + "\", but the pod '" + pod.name + "' (" +
            pod.source_file + ") has chip \"" + pod.chip.name +
            "\": a calibration profile applies only to topologies of the chip it names");
    d.line = profile.chip_line;
    d.column = profile.chip_column;
    throw InputError(std::move(d));
  }
  std::vector<Diagnostic> clashes;
  for (const std::string& o : pod.overrides) {
    if (o.starts_with(kCalibrationOverride)) {
      clashes.push_back(profile_diagnostic(
          profile, "",
          "--set " + o +
              " and this calibration profile both set the pod's calibration; the profile "
              "replaces it whole, so give one or the other (edit a copy of the profile to "
              "change one knob)"));
    }
  }
  if (!clashes.empty())
    throw InputError(std::move(clashes));
  const bool had_own = pod.calibration != CalibrationSpec{};
  pod.calibration = profile.calibration;
  pod.calibration.replaced_topology_calibration = had_own;
}

}  // namespace podsim::config
