// Horizontal stacked bars as inline SVG: one bar per row, its parts laid end
// to end in a fixed order (the step-time breakdown), the total written at the
// bar's end. layout_stacked_bars() places every segment, so a test can check
// the geometry without reading SVG back. O(bars x parts).
#pragma once

#include <string>
#include <vector>

#include "html/ticks.h"

namespace podsim::html {

struct StackedBar {
  std::string label;
  std::vector<double> parts;  // one per part name, >= 0, in data units
  double total = 0;           // what the parts add up to (the step time)
  std::string total_label;    // written after the bar
};

struct StackedBarChart {
  std::string title;
  std::string x_label;
  std::vector<std::string> part_names;
  std::vector<StackedBar> bars;
};

struct BarSegment {
  size_t bar = 0;
  size_t part = 0;
  double x = 0;  // pixels
  double y = 0;
  double w = 0;
  double h = 0;
};

struct BarLayout {
  double width = 0;
  double height = 0;  // without the legend
  double plot_left = 0;
  double plot_right = 0;
  double px_per_unit = 0;
  double bar_height = 0;
  std::vector<double> bar_top;  // per bar
  Ticks ticks;
  std::vector<BarSegment> segments;  // zero-width parts left out
};

// Every segment's place: a bar's segments start where the previous ended,
// from the plot's left edge, each part's value x px_per_unit wide.
BarLayout layout_stacked_bars(const StackedBarChart& chart, double width);

// The chart as an <svg> element, its legend below.
std::string render_stacked_bars(const StackedBarChart& chart, double width = 1000);

}  // namespace podsim::html
