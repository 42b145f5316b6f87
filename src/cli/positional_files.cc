#include "cli/positional_files.h"

namespace podsim::cli {

namespace po = boost::program_options;

std::vector<std::string> parse_with_files(const std::vector<std::string>& args,
                                          const po::options_description& opts,
                                          po::variables_map& vm) {
  constexpr const char* kFiles = "positional-files";
  po::options_description hidden;
  hidden.add_options()(kFiles, po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description positional;
  positional.add(kFiles, -1);
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  po::notify(vm);
  return vm.count(kFiles) != 0 ? vm[kFiles].as<std::vector<std::string>>()
                               : std::vector<std::string>{};
}

}  // namespace podsim::cli
