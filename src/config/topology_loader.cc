#include "config/topology_loader.h"

#include "config/internal/embedded_topology.h"
#include "config/internal/input_parser.h"
#include "config/internal/topology_converter.h"
#include "config/internal/topology_validator.h"
#include "podsim/topology.pb.h"

namespace podsim::config {
namespace {

using internal::InputFormat;
using internal::ParsedInput;

constexpr std::string_view kEmbeddedName = "<embedded:v5e-16x16>";

PodSpec parse(InputFormat format, std::string_view contents, std::string source_name) {
  Topology message;
  const ParsedInput parsed = ParsedInput::parse(format, contents, std::move(source_name), message);
  parsed.throw_if_invalid(internal::validate_topology(message));
  return internal::to_pod_spec(message, parsed.source());
}

}  // namespace

PodSpec parse_topology_text(std::string_view text, std::string source_name) {
  return parse(InputFormat::kText, text, std::move(source_name));
}

PodSpec parse_topology_binary(std::string_view bytes, std::string source_name) {
  return parse(InputFormat::kBinary, bytes, std::move(source_name));
}

PodSpec load_topology_file(const std::filesystem::path& path) {
  return parse(internal::format_of(path), read_file_to_string(path), path.string());
}

PodSpec default_topology() {
  return parse_topology_text(internal::embedded_default_topology_text(),
                             std::string(kEmbeddedName));
}

std::string default_topology_text() {
  return std::string(internal::embedded_default_topology_text());
}

}  // namespace podsim::config
