#include "html/line_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "html/legend.h"
#include "html/svg.h"
#include "html/ticks.h"

namespace podsim::html {

namespace {

constexpr double kLeft = 64;
constexpr double kRight = 16;
constexpr double kTop = 28;
constexpr double kBottom = 46;

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    if (std::isfinite(v)) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  bool empty() const { return lo > hi; }
};

// A category label short enough to sit under its tick.
std::string shortened(const std::string& label, double room_px) {
  const auto max_chars = static_cast<size_t>(std::max(3.0, room_px / (10 * 0.6)));
  if (label.size() <= max_chars) {
    return label;
  }
  size_t cut = max_chars - 1;
  while (cut > 0 && (static_cast<unsigned char>(label[cut]) & 0xC0) == 0x80) {
    --cut;  // not inside a UTF-8 sequence
  }
  return label.substr(0, cut) + "~";
}

}  // namespace

void sort_by_x(Series& series) {
  std::vector<size_t> order(series.points.size());
  for (size_t k = 0; k < order.size(); ++k) {
    order[k] = k;
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return series.points[a].first < series.points[b].first;
  });
  const Series unsorted = series;
  for (size_t k = 0; k < order.size(); ++k) {
    series.points[k] = unsorted.points[order[k]];
    if (order[k] < unsorted.point_labels.size() && k < series.point_labels.size()) {
      series.point_labels[k] = unsorted.point_labels[order[k]];
    }
  }
}

std::string render_line_chart(const LineChart& chart, double width, double height) {
  Range xr;
  Range yr;
  for (const Series& s : chart.series) {
    for (const auto& [x, y] : s.points) {
      xr.add(x);
      yr.add(y);
    }
  }
  for (const RefLine& r : chart.refs) {
    (r.vertical ? xr : yr).add(r.value);
  }
  if (xr.empty()) {
    xr.add(0);
    xr.add(1);
  }
  if (yr.empty()) {
    yr.add(0);
    yr.add(1);
  }
  if (chart.y_from_zero && yr.lo >= 0) {
    yr.lo = 0;
  }
  if (chart.x_from_zero && xr.lo >= 0) {
    xr.lo = 0;
  }
  const bool categorical = !chart.x_categories.empty();
  Ticks xt;
  if (categorical) {
    xt.lo = -0.5;
    xt.hi = static_cast<double>(chart.x_categories.size()) - 0.5;
    xt.step = 1;
    for (size_t i = 0; i < chart.x_categories.size(); ++i) {
      xt.values.push_back(static_cast<double>(i));
    }
  } else {
    xt = nice_ticks(xr.lo, xr.hi, std::max(2, static_cast<int>((width - kLeft - kRight) / 80)));
  }
  const Ticks yt = nice_ticks(yr.lo, yr.hi, 5);

  std::vector<LegendItem> items;
  for (size_t i = 0; i < chart.series.size(); ++i) {
    items.push_back({chart.series[i].name, colour(i), false});
  }
  for (const RefLine& r : chart.refs) {
    items.push_back({r.label, "#555", true});
  }
  const double legend_h = legend_height(items, width);
  Svg svg(width, height + legend_h, chart.title);
  const double px0 = kLeft;
  const double px1 = width - kRight;
  const double py0 = height - kBottom;  // y axis bottom, in pixels
  const double py1 = kTop;
  const auto sx = [&](double x) { return px0 + (x - xt.lo) / (xt.hi - xt.lo) * (px1 - px0); };
  const auto sy = [&](double y) { return py0 - (y - yt.lo) / (yt.hi - yt.lo) * (py0 - py1); };

  svg.text(width / 2, 16, chart.title, Anchor::kMiddle, 13, "#111");
  for (const double v : yt.values) {
    svg.line(px0, sy(v), px1, sy(v), "#e3e3e3");
    svg.text(px0 - 6, sy(v) + 4, tick_label(v, yt.step), Anchor::kEnd, 10);
  }
  const double room = (px1 - px0) / static_cast<double>(std::max<size_t>(xt.values.size(), 1));
  for (const double v : xt.values) {
    svg.line(sx(v), py0, sx(v), py0 + 4, "#888");
    const std::string label = categorical
                                  ? shortened(chart.x_categories[static_cast<size_t>(v)], room)
                                  : tick_label(v, xt.step);
    svg.text(sx(v), py0 + 16, label, Anchor::kMiddle, 10);
  }
  svg.line(px0, py0, px1, py0, "#888");
  svg.line(px0, py0, px0, py1, "#888");
  svg.text((px0 + px1) / 2, py0 + 34, chart.x_label, Anchor::kMiddle, 11);
  svg.text(16, (py0 + py1) / 2, chart.y_label, Anchor::kMiddle, 11, "#333", true);

  for (const RefLine& r : chart.refs) {
    if (r.vertical) {
      svg.line(sx(r.value), py0, sx(r.value), py1, "#555", 1.2, true);
    } else {
      svg.line(px0, sy(r.value), px1, sy(r.value), "#555", 1.2, true);
    }
  }
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const Series& s = chart.series[i];
    if (s.line) {
      std::vector<std::pair<double, double>> px;
      px.reserve(s.points.size() * (s.step ? 2 : 1));
      for (size_t k = 0; k < s.points.size(); ++k) {
        const auto [x, y] = s.points[k];
        if (s.step && k > 0) {
          px.emplace_back(sx(x), sy(s.points[k - 1].second));
        }
        px.emplace_back(sx(x), sy(y));
      }
      svg.polyline(px, colour(i));
    }
    if (s.markers) {
      for (size_t k = 0; k < s.points.size(); ++k) {
        const auto [x, y] = s.points[k];
        svg.circle(sx(x), sy(y), 3.5, colour(i),
                   k < s.point_labels.size() ? s.point_labels[k] : std::string());
      }
    }
  }
  draw_legend(svg, items, height);
  return svg.finish();
}

}  // namespace podsim::html
