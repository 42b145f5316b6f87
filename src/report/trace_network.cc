#include "report/trace_network.h"

#include <algorithm>

namespace podsim::report {

NetworkTracks::NetworkTracks(TraceEventWriter& writer, uint32_t pid, std::vector<std::string> axes,
                             uint32_t first_tid)
    : writer_(writer),
      pid_(pid),
      axes_(std::move(axes)),
      spans_(axes_.size()),
      first_tid_(first_tid) {}

size_t NetworkTracks::axis_index(const std::string& axis) {
  const auto it = std::find(axes_.begin(), axes_.end(), axis);
  if (it != axes_.end()) {
    return static_cast<size_t>(it - axes_.begin());
  }
  axes_.push_back(axis);
  spans_.emplace_back();
  return axes_.size() - 1;
}

void NetworkTracks::add(const std::vector<std::string>& axes, const NamedSpan& span) {
  for (const auto& a : axes) {
    spans_[axis_index(a)].push_back(span);
  }
}

uint32_t NetworkTracks::write() {
  writer_.process(pid_, "network", pid_);
  uint32_t tid = first_tid_;
  for (size_t a = 0; a < axes_.size(); ++a) {
    const TraceTrack track{pid_, tid++};
    writer_.thread(track, "axis " + axes_[a], track.tid);
    for (const BusySpan& b : merge_busy(std::move(spans_[a]))) {
      const std::string name = b.count > 1 ? b.first + " +" + std::to_string(b.count - 1) : b.first;
      TraceArgs args;
      args.set_axis(axes_[a]);
      args.set_merged(b.count);
      args.set_dur_ps(static_cast<double>((b.end - b.start).count_ps()));
      writer_.slice(track, name, "network", b.start, b.end, args);
    }
  }
  return tid;
}

}  // namespace podsim::report
