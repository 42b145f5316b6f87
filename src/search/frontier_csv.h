// The frontier as CSV, one row per frontier point in frontier order
// (docs/search.md lists the columns).
#pragma once

#include <string>
#include <vector>

#include "search/search.h"

namespace podsim::search {

// Header and rows. The latency column is `tpot_us` for decode and `ttft_us`
// for prefill. Times are in microseconds with six decimals (the simulator's
// picosecond, exactly); other figures in the shortest form that reads back
// as the same double. Equal results give equal bytes.
std::string frontier_csv(const Problem& problem, const SearchResult& result,
                         const std::vector<Slice>& slices, config::Phase phase);

// The shortest decimal text that reads back as `v` ("12.5", "1e-07").
std::string shortest(double v);

// `v` with `decimals` digits after the point ("5697.745461").
std::string fixed(double v, int decimals);

}  // namespace podsim::search
