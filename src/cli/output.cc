#include "cli/output.h"

#include <filesystem>
#include <system_error>

#include "report/output_file.h"

namespace podsim::cli {

report::Format parse_format_option(const std::string& value) {
  const auto f = report::parse_format(value);
  if (!f) {
    throw UsageError("--format: expected table, json or csv, got '" + value + "'");
  }
  return *f;
}

namespace {

// Whether `a` and `b` name the same file: the same path once made absolute
// and normal, or, when both exist, the same inode (links, "./x" and "x").
bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::absolute(a, ec).lexically_normal() == fs::absolute(b, ec).lexically_normal())
    return true;
  return fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec);
}

}  // namespace

void refuse_clobbering(const std::vector<NamedFile>& inputs,
                       const std::vector<NamedFile>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const NamedFile& out = outputs[i];
    if (out.path.empty() || out.path == "-")
      continue;
    for (const NamedFile& in : inputs) {
      if (!in.path.empty() && same_file(out.path, in.path)) {
        throw UsageError(out.option + " " + out.path + " is also the " + in.option +
                         " input: writing it would replace that input; choose another file");
      }
    }
    for (size_t j = 0; j < i; ++j) {
      if (!outputs[j].path.empty() && same_file(out.path, outputs[j].path)) {
        throw UsageError(outputs[j].option + " and " + out.option + " both name " + out.path +
                         ": one would overwrite the other; give each its own file");
      }
    }
  }
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
