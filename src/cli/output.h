// Where a subcommand's results go: stdout, or a file written whole or not at all.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/context.h"
#include "config/named_files.h"
#include "report/format.h"
#include "report/output_file.h"

namespace podsim::cli {

// Parses a --format value; throws UsageError naming the bad value.
report::Format parse_format_option(const std::string& value);

// A file a command reads or writes, by the option that names it.
struct NamedFile {
  std::string option;  // "--out", "--workload", "a file to compare"
  std::string path;
};

// Throws UsageError when an output would replace an input (the same path,
// or the same file under another name, a link's target included) or two
// outputs name one file, so nothing is lost: `--out` naming the workload
// overwrote it, and `--out F --trace F` kept only one of the two. `inputs`
// holds every file the command reads, the files its inputs name among them
// (config/named_files.h). Empty paths and "-" are skipped, and so is a
// character device (/dev/null: writing it loses nothing).
void refuse_clobbering(const std::vector<NamedFile>& inputs, const std::vector<NamedFile>& outputs);

// The files a loaded input names (config::files_named_by), as NamedFiles.
std::vector<NamedFile> named_inputs(const std::vector<config::NamedInputFile>& files);

// A command's output files, each written to its temporary as it is added and
// all put in place together by commit() (report::commit_together): a
// failure or an interrupt leaves every one as it was or every one new.
class PendingOutputs {
 public:
  // Starts `path`; the file stays valid until commit() or destruction.
  report::AtomicFile& open(const std::string& path);
  void add(const std::string& path, std::string_view text);
  void commit();

 private:
  std::vector<std::unique_ptr<report::AtomicFile>> files_;
};

// Adds `text` to `pending` as `out_file` when given, then commits every
// pending output; without `out_file`, prints `text` to stdout once they are in
// place.
void emit(Context& ctx, PendingOutputs& pending, const std::optional<std::string>& out_file,
          const std::string& text);
// The same with no other outputs.
void emit(Context& ctx, const std::optional<std::string>& out_file, const std::string& text);

// Throws report::OutputError ("cannot write output") when stdout has failed
// (a full disk under `> file`, /dev/full): a truncated result must not exit 0.
void check_stdout(std::ostream& out);

}  // namespace podsim::cli
