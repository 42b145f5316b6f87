// The SVG pieces: escaping, ticks on nice numbers, numbers written
// locale-free, and stacked bars whose segments add up to the bar.
#include "html/svg.h"

#include <gtest/gtest.h>

#include <cmath>

#include "html/escape.h"
#include "html/line_chart.h"
#include "html/stacked_bars.h"
#include "html/ticks.h"

namespace podsim::html {
namespace {

TEST(Escape, MarkupCharactersBecomeReferences) {
  EXPECT_EQ(escape("<script>alert('x & \"y\"')</script>"),
            "&lt;script&gt;alert(&#39;x &amp; &quot;y&quot;&#39;)&lt;/script&gt;");
  EXPECT_EQ(escape("plain 123 ü"), "plain 123 ü");
}

TEST(Escape, ControlCharactersXmlRefusesAreReplaced) {
  EXPECT_EQ(escape(std::string("a\x01"
                               "b\x1f"
                               "c")),
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD"
            "c");
  EXPECT_EQ(escape("tab\tline\nret\r"), "tab\tline\nret\r");
}

TEST(Svg, TextAndTooltipsAreEscaped) {
  Svg svg(100, 50, "title </svg><script>");
  svg.text(1, 2, "<b>&");
  svg.rect(0, 0, 1, 1, "#fff", "tip \"quoted\" <i>");
  const std::string out = svg.finish();
  EXPECT_EQ(out.find("<script"), std::string::npos);
  EXPECT_EQ(out.find("<b>"), std::string::npos);
  EXPECT_NE(out.find("&lt;b&gt;&amp;"), std::string::npos);
  EXPECT_NE(out.find("tip &quot;quoted&quot; &lt;i&gt;"), std::string::npos);
}

void expect_nice(const Ticks& t, double lo, double hi, int max_ticks) {
  SCOPED_TRACE(testing::Message() << "[" << lo << ", " << hi << "] step " << t.step);
  // The step is 1, 2 or 5 times a power of ten.
  const double mantissa = t.step / std::pow(10.0, std::floor(std::log10(t.step) + 1e-12));
  EXPECT_TRUE(std::abs(mantissa - 1) < 1e-9 || std::abs(mantissa - 2) < 1e-9 ||
              std::abs(mantissa - 5) < 1e-9);
  EXPECT_LE(t.lo, lo);
  EXPECT_GE(t.hi, hi);
  EXPECT_LE(static_cast<int>(t.values.size()) - 1, max_ticks);
  EXPECT_GE(t.values.size(), 2u);
  for (const double v : t.values) {
    EXPECT_NEAR(v / t.step, std::round(v / t.step), 1e-9 * std::max(1.0, std::abs(v / t.step)));
  }
  // Not wider than it needs: one step less at either end would cut data.
  EXPECT_GT(t.lo + t.step, lo);
  EXPECT_LT(t.hi - t.step, hi);
}

TEST(Ticks, NiceNumbersCoverTheRange) {
  const Ticks t = nice_ticks(0, 97, 5);
  EXPECT_EQ(t.step, 20);
  EXPECT_EQ(t.lo, 0);
  EXPECT_EQ(t.hi, 100);
  EXPECT_EQ(t.values, (std::vector<double>{0, 20, 40, 60, 80, 100}));
  for (const auto& [lo, hi, n] : std::vector<std::tuple<double, double, int>>{{0, 1, 5},
                                                                              {0, 0.087, 6},
                                                                              {0.013, 0.087, 6},
                                                                              {-3.2, 7.9, 4},
                                                                              {1e-6, 3e-6, 5},
                                                                              {12345, 98765, 6},
                                                                              {0, 3399.6, 6},
                                                                              {0.5, 0.5000001, 3},
                                                                              {41.2, 41.9, 2},
                                                                              {0, 2.5e11, 6},
                                                                              {-5, -1, 5},
                                                                              {0, 1, 1}}) {
    expect_nice(nice_ticks(lo, hi, n), lo, hi, n);
  }
}

TEST(Ticks, DegenerateRangesWiden) {
  const Ticks zero = nice_ticks(0, 0);
  EXPECT_EQ(zero.lo, 0);
  EXPECT_EQ(zero.hi, 1);
  const Ticks one = nice_ticks(5, 5);
  EXPECT_LT(one.lo, 5);
  EXPECT_GT(one.hi, 5);
  const Ticks bad = nice_ticks(NAN, INFINITY);
  EXPECT_EQ(bad.lo, 0);
  EXPECT_EQ(bad.hi, 1);
}

TEST(Ticks, LabelsAndCoordinates) {
  EXPECT_EQ(tick_label(0.25, 0.05), "0.25");
  EXPECT_EQ(tick_label(0.2, 0.1), "0.2");
  EXPECT_EQ(tick_label(40, 20), "40");
  EXPECT_EQ(tick_label(-1e-17, 0.1), "0");
  EXPECT_EQ(tick_label(2e6, 1e6), "2e+06");
  EXPECT_EQ(coord(12.34), "12.3");
  EXPECT_EQ(coord(-0.01), "0");
  EXPECT_EQ(coord(7.0), "7");
  EXPECT_EQ(figure(3.27323), "3.273");
  EXPECT_EQ(figure(91.6525), "91.65");
  EXPECT_EQ(figure(2069.999), "2070");
  EXPECT_EQ(figure(0.000123456), "0.0001235");
  EXPECT_EQ(figure(NAN), "-");
}

TEST(StackedBars, SegmentsAddUpToTheBar) {
  StackedBarChart chart;
  chart.part_names = {"a", "b", "c", "d"};
  chart.bars = {{"first", {1.25, 0.5, 0, 3.1}, 4.85, "4.85"},
                {"second", {10, 20, 30.5, 0.001}, 60.501, "60.5"},
                {"third", {0, 0, 0, 0.3}, 0.3, "0.3"}};
  const BarLayout l = layout_stacked_bars(chart, 900);
  ASSERT_GT(l.px_per_unit, 0);
  for (size_t b = 0; b < chart.bars.size(); ++b) {
    double width = 0;
    double end = l.plot_left;
    size_t segments = 0;
    for (const BarSegment& s : l.segments) {
      if (s.bar != b) {
        continue;
      }
      ++segments;
      EXPECT_NEAR(s.x, end, 1e-9) << "bar " << b << " part " << s.part << " leaves a gap";
      EXPECT_GT(s.w, 0);
      EXPECT_EQ(s.y, l.bar_top[b]);
      width += s.w;
      end = s.x + s.w;
    }
    EXPECT_NEAR(width, chart.bars[b].total * l.px_per_unit, 1e-9) << "bar " << b;
    EXPECT_EQ(segments, b == 2 ? 1u : (b == 0 ? 3u : 4u));  // zero parts drawn as nothing
  }
  // The longest bar fits in the plot.
  EXPECT_LE(l.plot_left + 60.501 * l.px_per_unit, l.plot_right + 1e-9);
}

TEST(LineChart, SameChartSameBytes) {
  LineChart c;
  c.title = "t";
  c.x_label = "x";
  c.y_label = "y";
  c.series.push_back({"s", {{0, 1}, {1, 2.5}, {2, 0.25}}, true, true, true, {"a", "b", "c"}});
  c.refs.push_back({"SLO", 1.5, true});
  const std::string a = render_line_chart(c);
  EXPECT_EQ(a, render_line_chart(c));
  EXPECT_NE(a.find("stroke-dasharray"), std::string::npos);
  EXPECT_NE(a.find("<title>b</title>"), std::string::npos);
}

TEST(LineChart, SortByXKeepsLabelsWithTheirPoints) {
  Series s{"s", {{3, 30}, {1, 10}, {2, 20}, {1, 11}}, false, true, true, {"c", "a", "b", "a2"}};
  sort_by_x(s);
  EXPECT_EQ(s.points, (std::vector<std::pair<double, double>>{{1, 10}, {1, 11}, {2, 20}, {3, 30}}));
  EXPECT_EQ(s.point_labels, (std::vector<std::string>{"a", "a2", "b", "c"}));
}

}  // namespace
}  // namespace podsim::html
