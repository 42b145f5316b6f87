// sniff_file_kind() (declared in workload_loader.h): the header comment, else
// a trial parse as each message type.
#include <algorithm>
#include <optional>

#include "config/internal/input_parser.h"
#include "config/workload_loader.h"
#include "podsim/calibration.pb.h"
#include "podsim/pricing.pb.h"
#include "podsim/topology.pb.h"
#include "podsim/workload.pb.h"

namespace podsim::config {
namespace {

constexpr std::string_view kHeaderKey = "proto-message:";

std::string_view trim(std::string_view s) {
  const size_t begin = s.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos)
    return {};
  return s.substr(begin, s.find_last_not_of(" \t\r") - begin + 1);
}

// The kind named by a "# proto-message: ..." line among the comment and blank
// lines that open `text`; nullopt when there is none. O(header length).
std::optional<FileKind> header_kind(std::string_view text, const std::string& source_name) {
  size_t begin = 0;
  for (int line = 1; begin < text.size(); ++line) {
    const size_t end = std::min(text.find('\n', begin), text.size());
    const std::string_view raw = text.substr(begin, end - begin);
    const std::string_view content = trim(raw);
    begin = end + 1;
    if (content.empty())
      continue;
    if (content.front() != '#')
      return std::nullopt;  // the message itself starts: the header is over
    const std::string_view comment = trim(content.substr(1));
    if (!comment.starts_with(kHeaderKey))
      continue;
    const std::string_view name = trim(comment.substr(kHeaderKey.size()));
    if (name == Topology::descriptor()->full_name())
      return FileKind::kTopology;
    if (name == Workload::descriptor()->full_name())
      return FileKind::kWorkload;
    if (name == CalibrationProfile::descriptor()->full_name())
      return FileKind::kCalibration;
    if (name == Pricing::descriptor()->full_name())
      return FileKind::kPricing;
    Diagnostic d;
    d.file = source_name;
    d.line = line;
    d.column = static_cast<int>(raw.find('#')) + 1;
    d.message = "the header names message \"" + std::string(name) +
                "\"; podsim reads podsim.Topology, podsim.Workload, podsim.CalibrationProfile and "
                "podsim.Pricing";
    throw InputError(std::move(d));
  }
  return std::nullopt;
}

}  // namespace

FileKind sniff_file_kind(const std::filesystem::path& path) {
  const std::string contents = read_file_to_string(path);
  const internal::InputFormat format = internal::format_of(path);
  if (format == internal::InputFormat::kText) {
    if (const auto kind = header_kind(contents, path.string()))
      return *kind;
  }
  Workload workload;
  Topology topology;
  if (internal::parses_cleanly(format, contents, topology))
    return FileKind::kTopology;
  if (internal::parses_cleanly(format, contents, workload))
    return FileKind::kWorkload;
  CalibrationProfile profile;
  if (internal::parses_cleanly(format, contents, profile))
    return FileKind::kCalibration;
  Pricing pricing;
  return internal::parses_cleanly(format, contents, pricing) ? FileKind::kPricing
                                                             : FileKind::kTopology;
}

}  // namespace podsim::config
