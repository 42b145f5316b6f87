#include "html/svg.h"

#include <cmath>

#include "html/escape.h"
#include "html/ticks.h"

namespace podsim::html {

const char* colour(size_t i) {
  return kColours[i % kColourCount];
}

namespace {

// Appends ` name="value"` (the value a coordinate).
void attr(std::string& out, std::string_view name, double value) {
  out += ' ';
  out += name;
  out += "=\"";
  out += coord(value);
  out += '"';
}

// Appends ` name="value"`, the value escaped.
void attr(std::string& out, std::string_view name, std::string_view value) {
  out += ' ';
  out += name;
  out += "=\"";
  out += escape(value);
  out += '"';
}

// Closes an element, with a tooltip when one is given.
void close_element(std::string& out, std::string_view element, std::string_view tooltip) {
  if (tooltip.empty()) {
    out += "/>\n";
    return;
  }
  out += "><title>";
  out += escape(tooltip);
  out += "</title></";
  out += element;
  out += ">\n";
}

}  // namespace

double text_width(std::string_view text, double size_px) {
  size_t chars = 0;
  for (const char c : text) {
    // Count code points, not bytes: continuation bytes are 10xxxxxx.
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++chars;
    }
  }
  return static_cast<double>(chars) * size_px * 0.6;
}

Svg::Svg(double width_px, double height_px, std::string_view title)
    : width_(width_px), height_(height_px) {
  out_ += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"";
  out_ += coord(width_px);
  out_ += "\" height=\"";
  out_ += coord(height_px);
  out_ += "\" viewBox=\"0 0 ";
  out_ += coord(width_px);
  out_ += ' ';
  out_ += coord(height_px);
  out_ += "\" role=\"img\"><title>";
  out_ += escape(title);
  out_ += "</title>\n";
}

void Svg::rect(double x, double y, double w, double h, std::string_view fill,
               std::string_view tooltip) {
  out_ += "<rect";
  attr(out_, "x", x);
  attr(out_, "y", y);
  attr(out_, "width", w);
  attr(out_, "height", h);
  attr(out_, "fill", fill);
  close_element(out_, "rect", tooltip);
}

void Svg::line(double x1, double y1, double x2, double y2, std::string_view stroke, double width,
               bool dashed) {
  out_ += "<line";
  attr(out_, "x1", x1);
  attr(out_, "y1", y1);
  attr(out_, "x2", x2);
  attr(out_, "y2", y2);
  attr(out_, "stroke", stroke);
  attr(out_, "stroke-width", width);
  if (dashed) {
    out_ += " stroke-dasharray=\"6 4\"";
  }
  out_ += "/>\n";
}

void Svg::polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke,
                   double width) {
  if (points.empty()) {
    return;
  }
  out_ += "<polyline fill=\"none\"";
  attr(out_, "stroke", stroke);
  attr(out_, "stroke-width", width);
  out_ += " points=\"";
  double last_x = 0;
  double last_y = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    const auto [x, y] = points[i];
    const bool last = i + 1 == points.size();
    if (i > 0 && !last && std::abs(x - last_x) < 0.5 && std::abs(y - last_y) < 0.5) {
      continue;
    }
    if (i > 0) {
      out_ += ' ';
    }
    out_ += coord(x);
    out_ += ',';
    out_ += coord(y);
    last_x = x;
    last_y = y;
  }
  out_ += "\"/>\n";
}

void Svg::circle(double x, double y, double r, std::string_view fill, std::string_view tooltip) {
  out_ += "<circle";
  attr(out_, "cx", x);
  attr(out_, "cy", y);
  attr(out_, "r", r);
  attr(out_, "fill", fill);
  close_element(out_, "circle", tooltip);
}

void Svg::text(double x, double y, std::string_view text, Anchor anchor, double size_px,
               std::string_view fill, bool rotate) {
  out_ += "<text";
  attr(out_, "x", x);
  attr(out_, "y", y);
  attr(out_, "font-size", size_px);
  attr(out_, "fill", fill);
  if (anchor == Anchor::kMiddle) {
    out_ += " text-anchor=\"middle\"";
  } else if (anchor == Anchor::kEnd) {
    out_ += " text-anchor=\"end\"";
  }
  if (rotate) {
    out_ += " transform=\"rotate(-90 ";
    out_ += coord(x);
    out_ += ' ';
    out_ += coord(y);
    out_ += ")\"";
  }
  out_ += '>';
  out_ += escape(text);
  out_ += "</text>\n";
}

std::string Svg::finish() {
  out_ += "</svg>\n";
  return std::move(out_);
}

}  // namespace podsim::html
