#include "report/svg_chart.hpp"

#include <gtest/gtest.h>
#include <pugixml.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace kubesim::svg {
namespace {

TEST(SvgChart, Num) {
  EXPECT_EQ(num(12), "12");
  EXPECT_EQ(num(12.5), "12.5");
  EXPECT_EQ(num(1.0 / 3), "0.33");
  EXPECT_EQ(num(-0.001), "0");
  EXPECT_EQ(num(-2.25), "-2.25");
  EXPECT_EQ(num(0.1875, 6), "0.1875");
}

TEST(SvgChart, Escape) { EXPECT_EQ(escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;"); }

TEST(SvgChart, NiceAxis) {
  Axis a = nice_axis(0, 8, 5);
  EXPECT_DOUBLE_EQ(a.step, 2);
  EXPECT_DOUBLE_EQ(a.hi, 8);
  EXPECT_EQ(a.ticks(), (std::vector<double>{0, 2, 4, 6, 8}));
  a = nice_axis(0, 430, 8);
  EXPECT_DOUBLE_EQ(a.step, 100);
  EXPECT_DOUBLE_EQ(a.hi, 500);
  a = nice_axis(0, 0, 5);  // empty range
  EXPECT_DOUBLE_EQ(a.hi, 1);
  EXPECT_DOUBLE_EQ(a.step, 0.2);
  a = nice_axis(0, 384, 5);
  EXPECT_DOUBLE_EQ(a.step, 100);
  EXPECT_DOUBLE_EQ(a.hi, 400);
}

TEST(SvgChart, DownsampleMeanKeepsStackedSums) {
  std::vector<double> x = {0, 1, 2, 3, 4, 5, 6};
  std::vector<Series> s(2);
  s[0].y = {1, 1, 1, 1, 1, 1, 1};
  s[1].y = {0, 2, 4, 6, 8, 10, 12};
  EXPECT_EQ(downsample_mean(x, s, 10), 1u);
  EXPECT_EQ(x.size(), 7u);
  EXPECT_EQ(downsample_mean(x, s, 3), 3u);
  EXPECT_EQ(x, (std::vector<double>{1, 4, 6}));
  EXPECT_EQ(s[0].y, (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(s[1].y, (std::vector<double>{2, 8, 12}));
}

ChartSpec small_spec() {
  ChartSpec spec;
  spec.id = "t";
  spec.title = "T <1>";
  spec.x_label = "x";
  spec.y_label = "y";
  spec.x = {0, 1, 2};
  Series a;
  a.label = "a";
  a.color = palette_color(0);
  a.y = {1, 2, 3};
  spec.series.push_back(a);
  return spec;
}

TEST(SvgChart, LineChartIsValidXmlWithPointsWhereComputed) {
  const ChartSpec spec = small_spec();
  const Frame f = chart_frame(spec);
  const std::string svg = line_chart_svg(spec);
  EXPECT_EQ(svg.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 0), 0u);
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(svg.c_str()));
  const pugi::xml_node line = doc.select_node("//polyline[@data-series='a']").node();
  ASSERT_TRUE(line);
  const std::string expected = num(f.px(0)) + "," + num(f.py(1)) + " " + num(f.px(1)) + "," + num(f.py(2)) + " " +
                               num(f.px(2)) + "," + num(f.py(3));
  EXPECT_EQ(line.attribute("points").value(), expected);
  // x axis 0..2 over the plot width; y axis 0..3.
  EXPECT_DOUBLE_EQ(f.px(0), f.plot_left());
  EXPECT_DOUBLE_EQ(f.px(2), f.plot_right());
  EXPECT_DOUBLE_EQ(f.py(0), f.plot_bottom());
  EXPECT_DOUBLE_EQ(f.py(3), f.plot_top());
  EXPECT_STREQ(doc.select_node("//title").node().text().get(), "T <1>");
  EXPECT_EQ(strip_xml_declaration(svg).substr(0, 5), "<svg ");
}

TEST(SvgChart, MismatchedSeriesThrows) {
  ChartSpec spec = small_spec();
  spec.series[0].y.pop_back();
  EXPECT_THROW(line_chart_svg(spec), std::invalid_argument);
}

TEST(SvgChart, DownsampledChartSaysSo) {
  ChartSpec spec = small_spec();
  spec.max_points = 2;
  const std::string svg = line_chart_svg(spec);
  EXPECT_NE(svg.find("Each point is the mean of 2"), std::string::npos);
}

TEST(SvgChart, LegendOverflowIsSummarised) {
  ChartSpec spec = small_spec();
  for (int i = 0; i < 40; ++i) {
    Series s = spec.series[0];
    s.label = "series-" + std::to_string(i);
    spec.series.push_back(s);
  }
  const std::string svg = line_chart_svg(spec);
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(svg.c_str()));
  const std::size_t shown = doc.select_nodes("//g[@class='legend-entry']").size();
  EXPECT_LT(shown, 41u);
  EXPECT_NE(svg.find("+" + std::to_string(41 - shown) + " more"), std::string::npos);
}

}  // namespace
}  // namespace kubesim::svg
