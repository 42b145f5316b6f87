#include "config/topology_loader.h"

#include <memory>
#include <optional>

#include "config/internal/embedded_topology.h"
#include "config/internal/input_parser.h"
#include "config/internal/topology_converter.h"
#include "config/internal/topology_validator.h"
#include "podsim/topology.pb.h"

namespace podsim::config {

struct TopologySource::Parsed : internal::ParsedSource<Topology> {};

namespace {

using internal::InputFormat;
using internal::ParsedInput;

constexpr std::string_view kEmbeddedTopologyName = "<embedded:v5e-16x16>";

constexpr std::string_view kTopologyRoot = "topology";  // of the --set paths this loader applies

PodSpec load_parsed(const internal::ParsedSource<Topology>& p, const Overrides& overrides,
                    const OverrideRoots& roots = {std::string(kTopologyRoot)}) {
  if (p.error) {
    throw *p.error;
  }
  Topology message = p.message;
  ParsedInput parsed = *p.input;
  parsed.apply_overrides(overrides, roots, message);
  parsed.throw_if_invalid(internal::validate_topology(message));
  PodSpec spec = internal::to_pod_spec(message, parsed.source());
  spec.overrides = internal::override_texts(overrides, roots);
  spec.source_sha256 = p.sha256;
  return spec;
}

PodSpec parse(InputFormat format, std::string_view contents, std::string source_name,
              const Overrides& overrides) {
  return load_parsed(
      internal::ParsedSource<Topology>::parse(format, contents, std::move(source_name)), overrides);
}

}  // namespace

PodSpec parse_topology_text(std::string_view text, std::string source_name,
                            const Overrides& overrides) {
  return parse(InputFormat::kText, text, std::move(source_name), overrides);
}

PodSpec parse_topology_binary(std::string_view bytes, std::string source_name,
                              const Overrides& overrides) {
  return parse(InputFormat::kBinary, bytes, std::move(source_name), overrides);
}

PodSpec load_topology_file(const std::filesystem::path& path, const Overrides& overrides) {
  return parse(internal::format_of(path), read_file_to_string(path), path.string(), overrides);
}

PodSpec load_topology_file(const std::filesystem::path& path, const Overrides& overrides,
                           const OverrideRoots& roots) {
  return load_parsed(internal::ParsedSource<Topology>::read(path), overrides, roots);
}

PodSpec default_topology(const Overrides& overrides) {
  return parse_topology_text(internal::embedded_default_topology_text(),
                             std::string(kEmbeddedTopologyName), overrides);
}

std::string default_topology_text() {
  return std::string(internal::embedded_default_topology_text());
}

TopologySource TopologySource::file(const std::filesystem::path& path) {
  return TopologySource(
      std::make_shared<const Parsed>(Parsed{internal::ParsedSource<Topology>::read(path)}));
}

TopologySource TopologySource::embedded() {
  return TopologySource(
      std::make_shared<const Parsed>(Parsed{internal::ParsedSource<Topology>::parse(
          InputFormat::kText, internal::embedded_default_topology_text(),
          std::string(kEmbeddedTopologyName))}));
}

PodSpec TopologySource::load(const Overrides& overrides) const {
  return load_parsed(*parsed_, overrides);
}

}  // namespace podsim::config
