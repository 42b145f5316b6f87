#include "cli/output.h"

#include "report/output_file.h"

namespace podsim::cli {

report::Format parse_format_option(const std::string& value) {
  const auto f = report::parse_format(value);
  if (!f) {
    throw UsageError("--format: expected table, json or csv, got '" + value + "'");
  }
  return *f;
}

void emit(Context& ctx, const std::optional<std::string>& out_file, const std::string& text) {
  if (out_file) {
    report::write_file_atomically(*out_file, text);
    ctx.log->info("wrote {}", *out_file);
    return;
  }
  ctx.out << text;
  ctx.out.flush();
}

}  // namespace podsim::cli
