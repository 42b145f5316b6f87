#include "config/sweep_loader.h"

#include "config/internal/input_parser.h"
#include "config/internal/sweep_validator.h"
#include "podsim/sweep.pb.h"

namespace podsim::config {
namespace {

SweepSpec parse(internal::InputFormat format, std::string_view contents, std::string source_name,
                const std::filesystem::path& base_dir) {
  Sweep message;
  const internal::ParsedInput parsed =
      internal::ParsedInput::parse(format, contents, std::move(source_name), message);
  parsed.throw_if_invalid(internal::validate_sweep(message, base_dir));
  return internal::to_sweep_spec(message, base_dir, parsed.source());
}

}  // namespace

SweepSpec load_sweep_file(const std::filesystem::path& path) {
  return parse(internal::format_of(path), read_file_to_string(path), path.string(),
               path.parent_path());
}

SweepSpec parse_sweep_text(std::string_view text, std::string source_name,
                           const std::filesystem::path& base_dir) {
  return parse(internal::InputFormat::kText, text, std::move(source_name), base_dir);
}

}  // namespace podsim::config
