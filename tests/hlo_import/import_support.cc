#include "import_support.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "chip/compute_model.h"
#include "config/diagnostics.h"
#include "hlo/parse_error.h"
#include "hlo/parser.h"

namespace podsim::hlo_import::testing {

config::PodSpec pod_spec(const std::vector<podsim::testing::TorusDim>& dims) {
  return podsim::testing::v5e_torus(dims);
}

config::PodSpec pod_2x2() {
  return pod_spec({{"x", 2, false}, {"y", 2, false}});
}

Imported import_text(const std::string& text, const topo::Pod& pod, const ImportOptions& options) {
  const hlo::Module module = hlo::parse_module(text, "test.hlo");
  return import_module(module, pod, options);
}

std::string import_error(const std::string& text, const topo::Pod& pod,
                         const ImportOptions& options) {
  try {
    import_text(text, pod, options);
  } catch (const config::InputError& e) {
    return e.what();
  } catch (const hlo::ParseError& e) {
    return e.what();
  }
  return "";
}

engine::OpListResult play(const topo::Pod& pod, const config::WorkloadSpec& workload,
                          net::Model model) {
  const auto compute =
      chip::make_compute_model(chip::ComputeModelKind::kRoofline, pod.spec().chip, {});
  return engine::run_op_list(pod, workload, engine::network_options(pod, model), *compute);
}

size_t index_of(const config::WorkloadSpec& w, std::string_view name) {
  for (size_t i = 0; i < w.operations.size(); ++i) {
    if (w.operations[i].name == name) {
      return i;
    }
  }
  ADD_FAILURE() << "no operation named " << name;
  throw std::out_of_range(std::string(name));
}

const config::OperationSpec& op(const config::WorkloadSpec& w, std::string_view name) {
  return w.operations[index_of(w, name)];
}

const config::ComputeOp& compute_of(const config::WorkloadSpec& w, std::string_view name) {
  return std::get<config::ComputeOp>(op(w, name).op);
}

const config::CollectiveSpec& collective_of(const config::WorkloadSpec& w, std::string_view name) {
  return std::get<config::CollectiveSpec>(op(w, name).op);
}

const engine::OperationResult& result_of(const engine::OpListResult& r, std::string_view name) {
  for (const engine::OperationResult& o : r.operations) {
    if (o.name == name) {
      return o;
    }
  }
  ADD_FAILURE() << "no result named " << name;
  throw std::out_of_range(std::string(name));
}

std::filesystem::path source_dir() {
  const char* env = std::getenv("PODSIM_SOURCE_DIR");
  return env != nullptr ? std::filesystem::path(env) : std::filesystem::current_path();
}

std::filesystem::path data(const std::string& file) {
  return source_dir() / "tests" / "hlo_import" / "data" / file;
}

std::string hlo_counts_script(const std::filesystem::path& file) {
  const std::string command = "/usr/bin/python3 '" +
                              (source_dir() / "scripts" / "hlo_counts.py").string() + "' '" +
                              file.string() + "' 2>&1";
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    return "popen failed";
  }
  std::array<char, 4096> buffer{};
  size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
    out.append(buffer.data(), n);
  }
  pclose(pipe);
  return out;
}

}  // namespace podsim::hlo_import::testing
