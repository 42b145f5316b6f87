#include "config/topology_loader.h"

#include <memory>
#include <optional>

#include "config/internal/embedded_topology.h"
#include "config/internal/input_parser.h"
#include "config/internal/sha256.h"
#include "config/internal/topology_converter.h"
#include "config/internal/topology_validator.h"
#include "podsim/topology.pb.h"

namespace podsim::config {

struct TopologySource::Parsed {
  Topology message;
  std::optional<internal::ParsedInput> input;  // nullopt when the input did not parse
  std::optional<InputError> error;             // why
  std::string sha256;
};

namespace {

using internal::InputFormat;
using internal::ParsedInput;

constexpr std::string_view kEmbeddedName = "<embedded:v5e-16x16>";

constexpr std::string_view kRoot = "topology";  // of the --set paths this loader applies

TopologySource::Parsed parse_only(InputFormat format, std::string_view contents,
                                  std::string source_name) {
  TopologySource::Parsed p;
  try {
    p.input.emplace(ParsedInput::parse(format, contents, std::move(source_name), p.message));
  } catch (const InputError& e) {
    p.error = e;
  }
  p.sha256 = internal::sha256_hex(contents);
  return p;
}

PodSpec load_parsed(const TopologySource::Parsed& p, const Overrides& overrides) {
  if (p.error) {
    throw *p.error;
  }
  Topology message = p.message;
  ParsedInput parsed = *p.input;
  parsed.apply_overrides(overrides, kRoot, message);
  parsed.throw_if_invalid(internal::validate_topology(message));
  PodSpec spec = internal::to_pod_spec(message, parsed.source());
  spec.overrides = internal::override_texts(overrides, kRoot);
  spec.source_sha256 = p.sha256;
  return spec;
}

PodSpec parse(InputFormat format, std::string_view contents, std::string source_name,
              const Overrides& overrides) {
  return load_parsed(parse_only(format, contents, std::move(source_name)), overrides);
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

PodSpec default_topology(const Overrides& overrides) {
  return parse_topology_text(internal::embedded_default_topology_text(), std::string(kEmbeddedName),
                             overrides);
}

std::string default_topology_text() {
  return std::string(internal::embedded_default_topology_text());
}

TopologySource TopologySource::file(const std::filesystem::path& path) {
  std::string contents;
  try {
    contents = read_file_to_string(path);
  } catch (const InputError& e) {
    Parsed p;
    p.error = e;
    return TopologySource(std::make_shared<const Parsed>(std::move(p)));
  }
  return TopologySource(std::make_shared<const Parsed>(
      parse_only(internal::format_of(path), contents, path.string())));
}

TopologySource TopologySource::embedded() {
  return TopologySource(std::make_shared<const Parsed>(parse_only(
      InputFormat::kText, internal::embedded_default_topology_text(), std::string(kEmbeddedName))));
}

PodSpec TopologySource::load(const Overrides& overrides) const {
  return load_parsed(*parsed_, overrides);
}

}  // namespace podsim::config
