#include "report/busy_spans.h"

#include <algorithm>

namespace podsim::report {

std::vector<BusySpan> merge_busy(std::vector<NamedSpan> spans) {
  std::stable_sort(spans.begin(), spans.end(),
                   [](const NamedSpan& a, const NamedSpan& b) { return a.start < b.start; });
  std::vector<BusySpan> out;
  for (auto& s : spans) {
    if (!out.empty() && s.start <= out.back().end) {
      out.back().end = std::max(out.back().end, s.end);
      ++out.back().count;
      continue;
    }
    out.push_back({s.start, s.end, std::move(s.name), 1});
  }
  return out;
}

}  // namespace podsim::report
