#include "report/output_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace podsim::report {

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  namespace fs = std::filesystem;
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  // The pid keeps two podsim processes writing the same file from sharing a temp name.
  std::string tmp_name = ".";
  tmp_name += path.filename().string();
  tmp_name += ".tmp.";
  tmp_name += std::to_string(::getpid());
  const fs::path tmp = dir / tmp_name;
  auto fail = [&](const std::string& what) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw OutputError(path.string() + ": cannot write output: " + what);
  };
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      fail(std::strerror(errno));
    }
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.flush();
    if (!out) {
      fail("write failed");
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fail(ec.message());
  }
}

}  // namespace podsim::report
