// Parsers of the structured attribute values (window, dim_labels,
// replica_groups, source_target_pairs, slice) and of constant literals.
// Each reads from the cursor and fails with a ParseError at the bad token.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "hlo/lexer.h"
#include "hlo/module.h"

namespace podsim::hlo::internal {

// `{size=3x3 stride=2x2 pad=1_1x0_0 lhs_dilate=1x1 rhs_dilate=1x1 window_reversal=0x1}`.
std::vector<WindowDim> parse_window(Lexer& lex);
// `b01f_01io->b01f`.
ConvDimLabels parse_dim_labels(Lexer& lex);
// `{}`, `{{0,1},{2,3}}`, `[G,S]<=[d0,...]` or `[G,S]<=[d0,...]T(p0,...)`.
ReplicaGroups parse_replica_groups(Lexer& lex);
// `{{0,1},{1,2}}`.
std::vector<std::pair<int64_t, int64_t>> parse_source_target_pairs(Lexer& lex);
// `{[0:8:1], [2:4]}`.
std::vector<SliceDim> parse_slice(Lexer& lex);
// A constant's payload text (between its parentheses) as a Literal.
Literal parse_literal(std::string_view text);

}  // namespace podsim::hlo::internal
