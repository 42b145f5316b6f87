#include "shipped.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>

namespace podsim::testing {

std::filesystem::path source_dir() {
  const char* dir = std::getenv("PODSIM_SOURCE_DIR");
  return dir != nullptr && *dir != '\0' ? std::filesystem::path(dir)
                                        : std::filesystem::current_path();
}

std::optional<std::string> topology_header(const std::filesystem::path& file) {
  std::ifstream in(file);
  const std::string key = "# topology:";
  for (std::string line; std::getline(in, line);) {
    if (line.empty())
      continue;
    if (line[0] != '#')
      break;
    if (line.rfind(key, 0) == 0) {
      const size_t begin = line.find_first_not_of(' ', key.size());
      return begin == std::string::npos ? std::string() : line.substr(begin);
    }
  }
  return std::nullopt;
}

std::vector<std::filesystem::path> textprotos(const std::string& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(source_dir() / dir)) {
    if (e.path().extension() == ".textproto") {
      files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace podsim::testing
