#include "config/workload_loader.h"

#include <memory>
#include <optional>

#include "config/internal/embedded_workload.h"
#include "config/internal/input_parser.h"
#include "config/internal/workload_converter.h"
#include "config/internal/workload_validator.h"
#include "podsim/workload.pb.h"

namespace podsim::config {

struct WorkloadSource::Parsed : internal::ParsedSource<Workload> {};

namespace {

using internal::InputFormat;
using internal::ParsedInput;

constexpr std::string_view kEmbeddedWorkloadName = "<embedded:llama3-70b-decode-v5e>";

constexpr std::string_view kWorkloadRoot = "workload";  // of the --set paths this loader applies

WorkloadSpec load_parsed(const internal::ParsedSource<Workload>& p, const PodSpec& pod,
                         const Overrides& overrides,
                         const OverrideRoots& roots = {std::string(kWorkloadRoot)}) {
  if (p.error) {
    throw *p.error;
  }
  Workload message = p.message;
  ParsedInput parsed = *p.input;
  parsed.apply_overrides(overrides, roots, message);
  parsed.throw_if_invalid(internal::validate_workload(message, pod));
  WorkloadSpec spec = internal::to_workload_spec(message, pod, parsed.source());
  spec.overrides = internal::override_texts(overrides, roots);
  spec.source_sha256 = p.sha256;
  return spec;
}

WorkloadSpec parse(InputFormat format, std::string_view contents, std::string source_name,
                   const PodSpec& pod, const Overrides& overrides) {
  return load_parsed(
      internal::ParsedSource<Workload>::parse(format, contents, std::move(source_name)), pod,
      overrides);
}

}  // namespace

WorkloadSpec parse_workload_text(std::string_view text, std::string source_name, const PodSpec& pod,
                                 const Overrides& overrides) {
  return parse(InputFormat::kText, text, std::move(source_name), pod, overrides);
}

WorkloadSpec parse_workload_binary(std::string_view bytes, std::string source_name,
                                   const PodSpec& pod, const Overrides& overrides) {
  return parse(InputFormat::kBinary, bytes, std::move(source_name), pod, overrides);
}

WorkloadSpec load_workload_file(const std::filesystem::path& path, const PodSpec& pod,
                                const Overrides& overrides) {
  return parse(internal::format_of(path), read_file_to_string(path), path.string(), pod, overrides);
}

WorkloadSpec load_workload_file(const std::filesystem::path& path, const PodSpec& pod,
                                const Overrides& overrides, const OverrideRoots& roots) {
  return load_parsed(internal::ParsedSource<Workload>::read(path), pod, overrides, roots);
}

WorkloadSpec default_workload(const PodSpec& pod, const Overrides& overrides) {
  return parse_workload_text(internal::embedded_default_workload_text(),
                             std::string(kEmbeddedWorkloadName), pod, overrides);
}

std::string default_workload_text() {
  return std::string(internal::embedded_default_workload_text());
}

std::string default_workload_topology_name() {
  return "tpu-v5e-16x16";
}

WorkloadSource WorkloadSource::file(const std::filesystem::path& path) {
  return WorkloadSource(
      std::make_shared<const Parsed>(Parsed{internal::ParsedSource<Workload>::read(path)}));
}

WorkloadSource WorkloadSource::embedded() {
  return WorkloadSource(
      std::make_shared<const Parsed>(Parsed{internal::ParsedSource<Workload>::parse(
          InputFormat::kText, internal::embedded_default_workload_text(),
          std::string(kEmbeddedWorkloadName))}));
}

WorkloadSpec WorkloadSource::load(const PodSpec& pod, const Overrides& overrides) const {
  return load_parsed(*parsed_, pod, overrides);
}

}  // namespace podsim::config
