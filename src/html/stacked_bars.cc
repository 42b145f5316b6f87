#include "html/stacked_bars.h"

#include <algorithm>

#include "html/legend.h"
#include "html/svg.h"

namespace podsim::html {

namespace {

constexpr double kTopPx = 30;
constexpr double kRowPx = 18;
constexpr double kBarPx = 13;
constexpr double kAxisPx = 40;
constexpr double kLabelFontPx = 10;
constexpr double kMaxLabelPx = 380;

// A bar's label cut to fit the margin (the full label is the tooltip).
std::string fitted(const std::string& label) {
  const auto max_chars = static_cast<size_t>(kMaxLabelPx / (kLabelFontPx * 0.6));
  if (label.size() <= max_chars) {
    return label;
  }
  size_t cut = max_chars - 1;
  while (cut > 0 && (static_cast<unsigned char>(label[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return label.substr(0, cut) + "~";
}

}  // namespace

BarLayout layout_stacked_bars(const StackedBarChart& chart, double width) {
  BarLayout l;
  l.width = width;
  double longest_label = 0;
  double longest = 0;
  for (const StackedBar& b : chart.bars) {
    longest_label = std::max(longest_label, text_width(fitted(b.label), kLabelFontPx));
    double sum = 0;
    for (const double p : b.parts) {
      sum += std::max(p, 0.0);
    }
    longest = std::max({longest, b.total, sum});
  }
  l.plot_left = std::min(longest_label, kMaxLabelPx) + 16;
  l.plot_right = width - 90;  // room for the total after the longest bar
  l.ticks = nice_ticks(0, longest, 6);
  l.px_per_unit = (l.plot_right - l.plot_left) / l.ticks.hi;
  l.bar_height = kBarPx;
  for (size_t i = 0; i < chart.bars.size(); ++i) {
    const double top = kTopPx + static_cast<double>(i) * kRowPx;
    l.bar_top.push_back(top);
    double start = 0;  // data units from the left edge
    const StackedBar& b = chart.bars[i];
    for (size_t p = 0; p < b.parts.size(); ++p) {
      const double v = std::max(b.parts[p], 0.0);
      if (v > 0) {
        // Both edges from the running sum, so the widths add up exactly to
        // the sum's width.
        const double x0 = l.plot_left + start * l.px_per_unit;
        const double x1 = l.plot_left + (start + v) * l.px_per_unit;
        l.segments.push_back({i, p, x0, top, x1 - x0, kBarPx});
      }
      start += v;
    }
  }
  l.height = kTopPx + static_cast<double>(chart.bars.size()) * kRowPx + kAxisPx;
  return l;
}

std::string render_stacked_bars(const StackedBarChart& chart, double width) {
  const BarLayout l = layout_stacked_bars(chart, width);
  std::vector<LegendItem> items;
  for (size_t p = 0; p < chart.part_names.size(); ++p) {
    items.push_back({chart.part_names[p], colour(p), false});
  }
  Svg svg(width, l.height + legend_height(items, width), chart.title);
  svg.text(width / 2, 16, chart.title, Anchor::kMiddle, 13, "#111");
  const double axis_y = l.height - kAxisPx + 6;
  for (const double v : l.ticks.values) {
    const double x = l.plot_left + v * l.px_per_unit;
    svg.line(x, kTopPx - 4, x, axis_y, "#e3e3e3");
    svg.text(x, axis_y + 14, tick_label(v, l.ticks.step), Anchor::kMiddle, 10);
  }
  svg.text((l.plot_left + l.plot_right) / 2, axis_y + 30, chart.x_label, Anchor::kMiddle, 11);
  for (size_t i = 0; i < chart.bars.size(); ++i) {
    const StackedBar& b = chart.bars[i];
    svg.text(l.plot_left - 8, l.bar_top[i] + kBarPx - 3, fitted(b.label), Anchor::kEnd,
             kLabelFontPx);
  }
  for (const BarSegment& s : l.segments) {
    const StackedBar& b = chart.bars[s.bar];
    std::string tip = b.label;
    tip += ": ";
    tip += s.part < chart.part_names.size() ? chart.part_names[s.part] : std::string("?");
    tip += ' ';
    tip += figure(b.parts[s.part]);
    svg.rect(s.x, s.y, s.w, s.h, colour(s.part), tip);
  }
  for (size_t i = 0; i < chart.bars.size(); ++i) {
    double sum = 0;
    for (const double p : chart.bars[i].parts) {
      sum += std::max(p, 0.0);
    }
    svg.text(l.plot_left + sum * l.px_per_unit + 4, l.bar_top[i] + kBarPx - 3,
             chart.bars[i].total_label, Anchor::kStart, kLabelFontPx);
  }
  svg.line(l.plot_left, kTopPx - 4, l.plot_left, axis_y, "#888");
  draw_legend(svg, items, l.height);
  return svg.finish();
}

}  // namespace podsim::html
