#include "html/legend.h"

namespace podsim::html {

namespace {

constexpr double kLegendRowPx = 18;
constexpr double kLegendSwatchPx = 22;
constexpr double kLegendFontPx = 11;
constexpr double kLegendMarginPx = 16;

double item_width(const LegendItem& item) {
  return kLegendSwatchPx + 6 + text_width(item.name, kLegendFontPx) + 16;
}

// Calls place(item, x, row) for each item, in rows across `width`; returns
// the number of rows.
template <typename Place>
int flow(const std::vector<LegendItem>& items, double width, Place place) {
  if (items.empty()) {
    return 0;
  }
  int row = 0;
  double x = kLegendMarginPx;
  for (const LegendItem& item : items) {
    const double w = item_width(item);
    if (x > kLegendMarginPx && x + w > width - kLegendMarginPx) {
      ++row;
      x = kLegendMarginPx;
    }
    place(item, x, row);
    x += w;
  }
  return row + 1;
}

}  // namespace

double legend_height(const std::vector<LegendItem>& items, double width) {
  const int rows = flow(items, width, [](const LegendItem&, double, int) {});
  return rows == 0 ? 0 : rows * kLegendRowPx + 6;
}

void draw_legend(Svg& svg, const std::vector<LegendItem>& items, double top) {
  flow(items, svg.width(), [&](const LegendItem& item, double x, int row) {
    const double y = top + row * kLegendRowPx + 10;
    if (item.dashed) {
      svg.line(x, y, x + kLegendSwatchPx, y, item.colour, 1.5, true);
    } else {
      svg.rect(x, y - 5, kLegendSwatchPx, 10, item.colour);
    }
    svg.text(x + kLegendSwatchPx + 6, y + 4, item.name, Anchor::kStart, kLegendFontPx);
  });
}

}  // namespace podsim::html
