#include "cli/output.h"

#include <spdlog/logger.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "report/output_target.h"

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
    if (out.path.empty() || out.path == "-" || report::is_character_device(out.path))
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

std::vector<NamedFile> named_inputs(const std::vector<config::NamedInputFile>& files) {
  std::vector<NamedFile> out;
  out.reserve(files.size());
  for (const config::NamedInputFile& f : files)
    out.push_back({f.what, f.path});
  return out;
}

report::AtomicFile& PendingOutputs::open(const std::string& path) {
  files_.push_back(std::make_unique<report::AtomicFile>(path));
  return *files_.back();
}

void PendingOutputs::add(const std::string& path, std::string_view text) {
  open(path).write(text);
}

void PendingOutputs::commit() {
  std::vector<report::AtomicFile*> files;
  files.reserve(files_.size());
  for (const auto& f : files_)
    files.push_back(f.get());
  report::commit_together(files);
  files_.clear();
}

void emit(Context& ctx, PendingOutputs& pending, const std::optional<std::string>& out_file,
          const std::string& text) {
  if (out_file)
    pending.add(*out_file, text);
  pending.commit();
  if (out_file) {
    ctx.log->info("wrote {}", *out_file);
    return;
  }
  ctx.out << text;
  ctx.out.flush();
  check_stdout(ctx.out);
}

void emit(Context& ctx, const std::optional<std::string>& out_file, const std::string& text) {
  PendingOutputs none;
  emit(ctx, none, out_file, text);
}

void check_stdout(std::ostream& out) {
  errno = 0;
  out.flush();
  if (out.good())
    return;
  // The stream keeps no error number: errno names the cause only when this
  // flush is the write that failed.
  const int why = errno;
  throw report::OutputError(std::string("standard output: cannot write output: ") +
                            (why != 0 ? std::strerror(why) : "a write failed"));
}

}  // namespace podsim::cli
