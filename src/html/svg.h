// An SVG document written element by element: the drawing primitives the
// charts use, every coordinate through coord() and every text through
// escape(), so the bytes depend only on what is drawn.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace podsim::html {

// Paul Tol's colour-blind-safe "bright" scheme, as scripts/plot_*.py.
inline constexpr const char* kColours[] = {"#4477AA", "#EE6677", "#228833", "#CCBB44",
                                           "#66CCEE", "#AA3377", "#BBBBBB"};
inline constexpr int kColourCount = 7;
// Colour of series `i`, repeating after seven.
const char* colour(size_t i);

// Text anchoring, as SVG's text-anchor.
enum class Anchor { kStart, kMiddle, kEnd };

class Svg {
 public:
  Svg(double width_px, double height_px, std::string_view title);

  void rect(double x, double y, double w, double h, std::string_view fill,
            std::string_view tooltip = {});
  void line(double x1, double y1, double x2, double y2, std::string_view stroke, double width = 1,
            bool dashed = false);
  // A polyline through `points` (pixels); points closer than half a pixel to
  // the last one drawn are skipped, so a long series stays small.
  void polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke,
                double width = 1.5);
  void circle(double x, double y, double r, std::string_view fill, std::string_view tooltip = {});
  void text(double x, double y, std::string_view text, Anchor anchor = Anchor::kStart,
            double size_px = 11, std::string_view fill = "#333", bool rotate = false);

  double width() const { return width_; }
  double height() const { return height_; }
  // The document, closed. Once.
  std::string finish();

 private:
  double width_;
  double height_;
  std::string out_;
};

// The width of `text` in pixels at `size_px`, estimated (0.6 em a
// character): for layout, not for measurement.
double text_width(std::string_view text, double size_px);

}  // namespace podsim::html
