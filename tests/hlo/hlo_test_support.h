// Helpers of the HLO tests: test inputs by name, and the instruction of a
// computation by name.
#pragma once

#include <string>
#include <string_view>

#include "hlo/module.h"

namespace podsim::hlo::test {

// tests/hlo/data/NAME, read whole.
std::string data_text(const std::string& name);
// tests/hlo/data/NAME, parsed.
Module data_module(const std::string& name);
// The instruction `name` of `computation`; fails the test (throws) if absent.
const Instruction& instr(const Computation& computation, std::string_view name);
const Computation& comp(const Module& module, std::string_view name);

}  // namespace podsim::hlo::test
