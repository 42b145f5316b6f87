// Reading HLO text into a Module (module.h). The grammar, what is skipped
// and what is not supported are in docs/hlo.md. One pass over the text,
// linear in its size; recursion only for nested tuple shapes, bounded by
// kMaxShapeDepth, so any input ends in a Module or a ParseError.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "hlo/module.h"
#include "hlo/parse_error.h"

namespace podsim::hlo {

// The largest HLO text read (offsets are 32-bit): real modules are a few MB.
inline constexpr uint64_t kMaxHloTextBytes = uint64_t{1} << 30;

// Parses `text`, naming `file` in errors ("model.hlo:12:34: expected ...").
// The module takes ownership of the text. Throws ParseError on bad syntax
// and on the semantic errors later stages could not survive: an operand or
// a called computation that names nothing, duplicate names, no ENTRY
// computation, two ROOTs, an empty computation, a computation that calls
// itself (directly or not), sizes beyond int64.
Module parse_module(std::string text, std::string file = "<hlo>");

// Reads and parses a file. Throws ParseError (line 0) when it cannot be read.
Module load_module(const std::filesystem::path& path);

}  // namespace podsim::hlo
