#include "report/gantt_chart.hpp"
#include "report/tenant_report.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <pugixml.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "report/svg_chart.hpp"
#include "report/tenant_report_test_data.hpp"
#include "testing/inputs.hpp"
#include "testing/scratch_dir.hpp"
#include "testing/text_files.hpp"

namespace kubesim {
namespace {

using testing::lines_of;
using testing::read_file;

pugi::xml_document parse_svg(const std::string& svg) {
  pugi::xml_document doc;
  const pugi::xml_parse_result r = doc.load_string(svg.c_str());
  EXPECT_TRUE(r) << r.description() << " at offset " << r.offset;
  EXPECT_STREQ(doc.document_element().name(), "svg");
  EXPECT_STREQ(doc.document_element().attribute("xmlns").value(), "http://www.w3.org/2000/svg");
  return doc;
}

std::string series_points(const pugi::xml_document& doc, const char* element, const std::string& series) {
  const std::string q = std::string("//") + element + "[@data-series='" + series + "']";
  const pugi::xpath_node n = doc.select_node(q.c_str());
  if (!n) return "<missing " + series + ">";
  return n.node().attribute("points").value();
}

// See tenant_report_test_data.hpp for the data. Time axis: 0..4 s over the plot's 688 px from
// x = 72, so px(t) = 72 + 172 t; plot area y from 56 to 348 (292 px).
class TenantReportTest : public ::testing::Test {
 protected:
  testdata::TenantReportFixture data_;
  TenantReportInput input() const { return data_.input(); }
};

TEST(TenantReportFormat, Cores) {
  EXPECT_EQ(format_cores(0), "0");
  EXPECT_EQ(format_cores(4000), "4");
  EXPECT_EQ(format_cores(500), "0.5");
  EXPECT_EQ(format_cores(1250), "1.25");
  EXPECT_EQ(format_cores(1), "0.001");
  EXPECT_EQ(format_cores(-1250), "-1.25");
  EXPECT_EQ(format_cores(384000), "384");
}

TEST(TenantReportFormat, Seconds) {
  EXPECT_EQ(format_seconds_short(0), "0");
  EXPECT_EQ(format_seconds_short(2'500'000), "2.5");
  EXPECT_EQ(format_seconds_short(1), "0.000001");
  EXPECT_EQ(format_seconds_short(180'000'000), "180");
}

TEST_F(TenantReportTest, TimeseriesCsv) {
  const auto lines = lines_of(tenant_timeseries_csv(input()));
  const std::vector<std::string> expected = {
      "time_s,tenant,pending_cores,running_cores,completed_cores,preempted_cores",
      "0,tenant1,4,4,0,0",
      "0,tenant2,0.5,0,0,0",
      "1,tenant1,0,8,0,0",
      "1,tenant2,0.5,0,0,0",
      "2,tenant1,0,4,4,0",
      "2,tenant2,0,0.5,0,0",
      "3,tenant1,0,4,4,0",
      "3,tenant2,0,0,0,0.5",
      "4,tenant1,0,1.5,8,0",
      "4,tenant2,0,0,0,0.5",
  };
  EXPECT_EQ(lines, expected);
}

TEST_F(TenantReportTest, QueueCsv) {
  const auto lines = lines_of(tenant_queue_csv(input()));
  const std::vector<std::string> expected = {
      "time_s,pending_pods,running_cores,capacity_cores,utilisation",
      "0,2,4,8,0.5",
      "1,1,8,8,1",
      "2,0,4.5,8,0.5625",
      "3,0,4,8,0.5",
      "4,0,1.5,8,0.1875",
  };
  EXPECT_EQ(lines, expected);
}

TEST_F(TenantReportTest, QueueCsvWithoutCapacityOrPendingPods) {
  data_.series.capacity_milli = 0;
  data_.series.pending_pods.clear();
  const auto lines = lines_of(tenant_queue_csv(input()));
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[1], "0,,4,0,");
}

TEST_F(TenantReportTest, SummaryCsv) {
  const auto lines = lines_of(tenant_summary_csv(input()));
  const std::vector<std::string> expected = {
      "tenant,jobs,completed,failed_pods,total_cores,total_queue_time_s,average_queue_time_s,total_run_time_s,"
      "total_queue_run_time_s,makespan_s,utilisation",
      "tenant1,3,1,1,12,1.5,0.5,3,4.5,4,",
      "tenant2,2,0,1,4.5,2,2,2,4,3.25,",
      "(cluster),5,1,2,16.5,3.5,,5,8.5,,0.6",
  };
  EXPECT_EQ(lines, expected);
}

TEST_F(TenantReportTest, InconsistentSeriesIsRejected) {
  data_.series.samples.pop_back();
  EXPECT_THROW(tenant_timeseries_csv(input()), std::invalid_argument);
  EXPECT_THROW(build_tenant_reports(input()), std::invalid_argument);
  data_.series.samples.push_back({});
  data_.series.pending_pods.pop_back();
  EXPECT_THROW(build_tenant_reports(input()), std::invalid_argument);
}

TEST_F(TenantReportTest, RunningCoresAreStackedAreas) {
  const std::string svg = cores_running_svg(input());
  const auto doc = parse_svg(svg);
  // y axis 0..8 cores: py(c) = 348 - 36.5 c. tenant1 at the bottom, tenant2 stacked on it.
  EXPECT_EQ(series_points(doc, "polygon", "tenant1"),
            "72,202 244,56 416,202 588,202 760,293.25 760,348 588,348 416,348 244,348 72,348");
  EXPECT_EQ(series_points(doc, "polygon", "tenant2"),
            "72,202 244,56 416,183.75 588,202 760,293.25 760,293.25 588,202 416,202 244,56 72,202");
  const pugi::xpath_node cap = doc.select_node("//line[@class='ref-line']");
  ASSERT_TRUE(cap);
  EXPECT_STREQ(cap.node().attribute("y1").value(), "56");
  EXPECT_TRUE(doc.select_node("//g[@class='legend-entry'][@data-series='tenant1']"));
  EXPECT_TRUE(doc.select_node("//g[@class='legend-entry'][@data-series='capacity 8 cores']"));
  EXPECT_EQ(doc.select_nodes("//g[@class='y-axis']/text[@class='tick-label']").size(), 5u);  // 0 2 4 6 8
  EXPECT_EQ(doc.select_nodes("//g[@class='x-axis']/text[@class='tick-label']").size(), 9u);  // 0 0.5 .. 4
  EXPECT_NE(svg.find(">Run time (s)</text>"), std::string::npos);
  EXPECT_NE(svg.find(">Cores</text>"), std::string::npos);
  EXPECT_NE(svg.find(">E9 test: running cores per tenant</text>"), std::string::npos);
}

TEST_F(TenantReportTest, PendingCoresAreLinesWithPreemptedDashed) {
  const auto doc = parse_svg(cores_pending_svg(input()));
  // y axis 0..4 cores: py(c) = 348 - 73 c.
  EXPECT_EQ(series_points(doc, "polyline", "tenant1 pending"), "72,56 244,348 416,348 588,348 760,348");
  EXPECT_EQ(series_points(doc, "polyline", "tenant2 pending"), "72,311.5 244,311.5 416,348 588,348 760,348");
  EXPECT_EQ(series_points(doc, "polyline", "tenant2 preempted"), "72,348 244,348 416,348 588,311.5 760,311.5");
  // tenant1 never had preempted cores: no line for it.
  EXPECT_FALSE(doc.select_node("//polyline[@data-series='tenant1 preempted']"));
  const pugi::xpath_node dashed = doc.select_node("//polyline[@data-series='tenant2 preempted']");
  EXPECT_STREQ(dashed.node().attribute("stroke-dasharray").value(), "7 4");
  EXPECT_STREQ(dashed.node().attribute("stroke").value(), svg::palette_color(1).c_str());
}

TEST_F(TenantReportTest, CompletedCores) {
  const auto doc = parse_svg(cores_completed_svg(input()));
  // y axis 0..8: py(c) = 348 - 36.5 c.
  EXPECT_EQ(series_points(doc, "polyline", "tenant1"), "72,348 244,348 416,202 588,202 760,56");
}

TEST_F(TenantReportTest, UtilisationWithMean) {
  const std::string svg = utilisation_svg(input());
  const auto doc = parse_svg(svg);
  // 0..100 %: py(u) = 348 - 2.92 u; utilisation 50, 100, 56.25, 50, 18.75 %.
  EXPECT_EQ(series_points(doc, "polyline", "utilisation"), "72,202 244,56 416,183.75 588,202 760,293.25");
  const pugi::xpath_node mean = doc.select_node("//g[@class='ref-line']");
  ASSERT_TRUE(mean);
  EXPECT_STREQ(mean.node().attribute("data-value").value(), "60");
  EXPECT_STREQ(mean.node().child("line").attribute("y1").value(), "172.8");
  EXPECT_STREQ(mean.node().child("text").text().get(), "mean 60%");
  EXPECT_NE(svg.find(">100%</text>"), std::string::npos);
}

TEST_F(TenantReportTest, QueueChart) {
  const auto doc = parse_svg(queue_svg(input()));
  // 0..2 pods: py(n) = 348 - 146 n.
  EXPECT_EQ(series_points(doc, "polyline", "pending pods"), "72,56 244,202 416,348 588,348 760,348");
}

TEST_F(TenantReportTest, GanttBarsByNodeAndLane) {
  const std::string svg = gantt_svg(input());
  const auto doc = parse_svg(svg);
  // Plot from x = 130, 630 px for 0..4 s: px(t) = 130 + 157.5 t. Lanes 14 px high, bars inset
  // by 0.5; node-a has two lanes (p0 [1,3] and p1 [2,4] overlap), node-b one, 3 px apart.
  const auto pods = doc.select_nodes("//g[@class='pod']");
  ASSERT_EQ(pods.size(), 4u);  // the pending pod has no bar
  struct Expect {
    const char* state;
    const char* x;
    const char* y;
    const char* width;
    std::string fill;
  };
  // In start order: p4 (node-b, 0..1), p0 (node-a, 1..3), p1 (node-a lane 1, 2..4), p2 (node-b, 2..end).
  const std::vector<Expect> expected = {
      {"failed", "130", "87.5", "157.5", svg::palette_color(0)},
      {"succeeded", "287.5", "56.5", "315", svg::palette_color(0)},
      {"preempted", "445", "70.5", "315", svg::palette_color(1)},
      {"running", "445", "87.5", "315", svg::palette_color(0)},
  };
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const pugi::xml_node g = pods[i].node();
    const pugi::xml_node r = g.child("rect");
    SCOPED_TRACE(i);
    EXPECT_STREQ(g.attribute("data-state").value(), expected[i].state);
    EXPECT_STREQ(r.attribute("x").value(), expected[i].x);
    EXPECT_STREQ(r.attribute("y").value(), expected[i].y);
    EXPECT_STREQ(r.attribute("width").value(), expected[i].width);
    EXPECT_STREQ(r.attribute("height").value(), "13");
    EXPECT_STREQ(r.attribute("fill").value(), expected[i].fill.c_str());
  }
  // Marks: failed and preempted bars carry the hatch overlay; preempted is outlined; the pod
  // still running at the end is drawn lighter.
  EXPECT_EQ(doc.select_nodes("//g[@class='pod']/rect[@fill='url(#gantt-hatch)']").size(), 2u);
  EXPECT_STREQ(pods[2].node().child("rect").attribute("stroke").value(), "#000000");
  EXPECT_STREQ(pods[3].node().child("rect").attribute("fill-opacity").value(), "0.55");
  EXPECT_STREQ(pods[2].node().child("title").text().get(), "tenant2/p1 on node-a: 2 s - 4 s, preempted");
  EXPECT_TRUE(doc.select_node("//pattern[@id='gantt-hatch']"));
  EXPECT_EQ(doc.select_nodes("//text[@class='node-label']").size(), 2u);
  EXPECT_TRUE(doc.select_node("//g[@class='legend-entry'][@data-series='tenant2']"));
  EXPECT_TRUE(doc.select_node("//g[@class='legend-entry'][@data-series='preempted']"));
  EXPECT_EQ(svg.find("Capped"), std::string::npos);
}

TEST_F(TenantReportTest, GanttIsCapped) {
  TenantReportInput in = input();
  in.gantt_max_nodes = 1;
  in.gantt_max_bars = 1;
  const std::string svg = gantt_svg(in);
  const auto doc = parse_svg(svg);
  EXPECT_EQ(doc.select_nodes("//g[@class='pod']").size(), 1u);
  EXPECT_EQ(doc.select_nodes("//text[@class='node-label']").size(), 1u);
  EXPECT_NE(svg.find("Capped: first 1 of 2 nodes shown."), std::string::npos);
  // Wrapped in the legend column at 34 characters.
  EXPECT_NE(svg.find(">Capped: the first 1 of 2 pods on<"), std::string::npos);
}

TEST(TenantReportGantt, ManyPodsStayBounded) {
  ObjectStore store;
  const PodTemplateId spec = store.add_template(testing::PodTemplateBuilder().cpu("1").no_limits());
  const NamespaceId ns = store.ensure_namespace("tenant1");
  for (const Node& node : testing::numbered_nodes(200, testing::NodeBuilder(""))) store.create_node(node);
  for (int i = 0; i < 20000; ++i) {
    Pod p;
    p.name = "pod-" + std::to_string(i);
    p.ns = ns;
    p.spec = spec;
    p.node = NodeId(static_cast<std::uint32_t>(i % 200));
    p.started = SimTime::from_seconds(i / 200);
    p.finished = SimTime::from_seconds(i / 200 + 3);
    p.phase = PodPhase::kSucceeded;
    store.create_pod(p);
  }
  TenantTimeSeries series;
  series.tenants = {"tenant1"};
  RunSummary summary;
  summary.end = SimTime::from_seconds(110);
  const TenantReportInput in{series, summary, store, "big", "", 1, ""};
  const std::string svg = gantt_svg(in);
  const auto doc = parse_svg(svg);
  EXPECT_EQ(doc.select_nodes("//g[@class='pod']").size(), 4000u);
  EXPECT_LT(svg.size(), 2u << 20);
  EXPECT_NE(svg.find("20000 pods started on 200 nodes."), std::string::npos);
  EXPECT_NE(svg.find(">Capped: first 64 of 200 nodes<"), std::string::npos);
}

TEST_F(TenantReportTest, HtmlInlinesTablesAndCharts) {
  const std::vector<ReportFile> files = build_tenant_reports(input());
  std::vector<std::string> names;
  for (const auto& f : files) names.push_back(f.name);
  const std::vector<std::string> expected_names = {
      "timeseries.csv",      "queue.csv",      "summary.csv", "cores_running.svg", "cores_pending.svg",
      "cores_completed.svg", "utilisation.svg", "queue.svg",  "gantt.svg",         "report.html"};
  ASSERT_EQ(names, expected_names);
  const std::string& html = files.back().content;
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<title>E9 test</title>"), std::string::npos);
  EXPECT_NE(html.find("<tr><th>seed</th><td>42</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<tr><th>model</th><td>ideal &amp; fast</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<tr><th>scenario</th><td>e9.yaml</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<tr><th>scheduler</th><td>default-scheduler</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<table id=\"summary-table\">"), std::string::npos);
  // Rounded for people, with units (summary.csv keeps every digit); utilisation as a percent.
  EXPECT_NE(html.find("<tr><td>tenant1</td><td>3</td><td>1</td><td>1</td><td>12</td><td>1.5 s</td><td>0.5 s</td>"
                      "<td>3 s</td><td>4.5 s</td><td>4 s</td><td></td></tr>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr class=\"cluster\"><td>(cluster)</td><td>5</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>60.0%</td></tr>"), std::string::npos);
  // The headline comes first: the answering sentence before the summary table and parameters.
  EXPECT_LT(html.find("<p class=\"answer\">"), html.find("<table id=\"summary-table\">"));
  EXPECT_LT(html.find("<table id=\"summary-table\">"), html.find("<section id=\"parameters\">"));
  // Every chart inlined verbatim (without its XML declaration), nothing external.
  for (const auto& f : files) {
    if (f.name.size() < 4 || f.name.substr(f.name.size() - 4) != ".svg") continue;
    SCOPED_TRACE(f.name);
    EXPECT_NE(html.find(std::string(svg::strip_xml_declaration(f.content))), std::string::npos);
  }
  EXPECT_EQ(html.find("<?xml"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
}

TEST_F(TenantReportTest, WritesEveryFileAtomically) {
  const testing::ScratchDir scratch;
  const std::filesystem::path dir = scratch.path();
  write_tenant_reports((dir / "sub").string(), input());
  const std::vector<ReportFile> files = build_tenant_reports(input());
  std::size_t count = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir / "sub")) {
    (void)e;
    ++count;
  }
  EXPECT_EQ(count, files.size());  // no temporary files left behind
  for (const auto& f : files) EXPECT_EQ(read_file(dir / "sub" / f.name), f.content) << f.name;
}

TEST_F(TenantReportTest, InvalidInputWritesNothing) {
  const testing::ScratchDir scratch;
  const std::filesystem::path dir = std::filesystem::path(scratch.path()) / "out";
  data_.series.samples.pop_back();
  EXPECT_THROW(write_tenant_reports(dir.string(), input()), std::invalid_argument);
  EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST_F(TenantReportTest, OutputIsDeterministic) {
  const auto a = build_tenant_reports(input());
  const auto b = build_tenant_reports(input());
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].content, b[i].content) << a[i].name;
}

}  // namespace
}  // namespace kubesim
