// Request traces for `podsim serve` (docs/serving.md, "Trace files"): a CSV
// whose header says its format.
//
//  - Azure LLM inference trace 2023: TIMESTAMP,ContextTokens,GeneratedTokens,
//    the timestamp as "YYYY-MM-DD HH:MM:SS.fffffff" (up to 7 fraction digits,
//    100 ns; UTC, no time zone).
//  - plain: arrival_s,prompt_tokens,output_tokens, the arrival in seconds
//    (a decimal number >= 0).
//
// Arrivals are taken relative to the earliest row and sorted (stably: rows
// with equal times keep their file order). Token counts are integers in
// [1, kMaxRequestTokens]; a zero output (the Azure trace has none, but other
// traces may) is refused at its line. At most kMaxTraceRows rows (a run's
// requests).
// Errors name the file, the line and the column and say what is wrong, all at
// once (InputError).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "config/diagnostics.h"
#include "config/serve_spec.h"

namespace podsim::config {

inline constexpr uint64_t kMaxTraceRows = kMaxServeRequests;

// `speedup` divides every arrival time (> 0).
std::vector<TraceRequest> parse_trace_csv(std::string_view text, const std::string& source_name,
                                          double speedup = 1);

// `sha256`, when given, receives the hex SHA-256 of the file's bytes.
std::vector<TraceRequest> load_trace_file(const std::filesystem::path& path, double speedup = 1,
                                          std::string* sha256 = nullptr);

}  // namespace podsim::config
