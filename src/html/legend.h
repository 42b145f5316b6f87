// A chart's legend: coloured swatches with names, laid out in rows below the
// plot, as wide as the chart.
#pragma once

#include <string>
#include <vector>

#include "html/svg.h"

namespace podsim::html {

struct LegendItem {
  std::string name;
  std::string colour;
  bool dashed = false;  // a reference line rather than a series
};

// The height, in pixels, the items take in rows across `width`.
double legend_height(const std::vector<LegendItem>& items, double width);

// Draws the items in rows starting at `top`, across the SVG's width.
void draw_legend(Svg& svg, const std::vector<LegendItem>& items, double top);

}  // namespace podsim::html
