#include "hlo_test_support.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "hlo/parser.h"
#include "shipped.h"

namespace podsim::hlo::test {

std::string data_text(const std::string& name) {
  const auto path = podsim::testing::source_dir() / "tests/hlo/data" / name;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot read " + path.string());
  }
  std::ostringstream out;
  out << in.rdbuf();
  return std::move(out).str();
}

Module data_module(const std::string& name) {
  return parse_module(data_text(name), name);
}

const Instruction& instr(const Computation& computation, std::string_view name) {
  const InstructionId id = computation.find(name);
  if (id == kNone) {
    throw std::runtime_error("no instruction " + std::string(name));
  }
  return computation.instructions[static_cast<size_t>(id)];
}

const Computation& comp(const Module& module, std::string_view name) {
  const ComputationId id = module.find(name);
  if (id == kNone) {
    throw std::runtime_error("no computation " + std::string(name));
  }
  return module.computations[static_cast<size_t>(id)];
}

}  // namespace podsim::hlo::test
