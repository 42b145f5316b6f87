// An x-y chart as inline SVG: lines (or steps, or points) per series, nice
// ticks on both axes, reference lines (an SLO, a target) and a legend below.
// The serve CDFs and time series, the sweep plot, the search frontier and
// the capacity search are all drawn with it. O(points) to render; a series
// keeps only the points half a pixel or more apart.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace podsim::html {

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y) in data units, in drawing order
  bool step = false;                              // a step function: y holds until the next x
  bool markers = false;  // a dot at each point (a tooltip with `point_labels[i]` when given)
  bool line = true;
  std::vector<std::string> point_labels;  // empty, or one per point
};

// A dashed line across the plot at `value`, named in the legend.
struct RefLine {
  std::string label;
  double value = 0;
  bool vertical = true;  // at an x value; otherwise at a y value
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<Series> series;
  std::vector<RefLine> refs;
  // Non-empty: the x values are indices into these, drawn as labels.
  std::vector<std::string> x_categories;
  bool y_from_zero = true;  // the y axis starts at 0 (when the data are >= 0)
  bool x_from_zero = false;
};

// Reorders the series' points (and their labels) by x, ties in their order:
// a line drawn through rows that came in another order.
void sort_by_x(Series& series);

// The chart as an <svg> element; `width` and `height` in pixels, the
// legend's rows added below.
std::string render_line_chart(const LineChart& chart, double width = 560, double height = 300);

}  // namespace podsim::html
