// Hand-written SVG charts for the reports: a plot frame (axes with "nice" ticks, grid, title,
// legend) shared by every chart, and an x/y chart of lines and stacked areas built on it.
// Output is deterministic: coordinates are printed with at most two decimals ("%.2f", trailing
// zeros removed), elements are emitted in input order, nothing depends on locale or time.
//
// Elements that tests (and readers of the SVG) look for carry classes and data- attributes:
// the plot area is <rect class="plot-area">, each series is <polyline class="series-line"> or
// <polygon class="series-area"> with data-series="<label>", legend entries are
// <g class="legend-entry" data-series="<label>">, horizontal reference lines are
// <g class="ref-line" data-value="<y>"> holding a <line class="ref-line"> and its label.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kubesim::svg {

// XML-escapes & < > " ' for text and attribute values.
std::string escape(std::string_view s);

// A coordinate or value with at most `decimals` decimals, trailing zeros (and a trailing '.')
// removed, "-0" written "0": 12 -> "12", 12.5 -> "12.5", 1/3 -> "0.33".
std::string num(double v, int decimals = 2);

// A categorical palette (tab10, whose first four are the study's blue, green, red, orange).
const std::string& palette_color(std::size_t i);

// An axis range [lo, hi] with ticks every `step` (1, 2 or 5 times a power of ten) from lo.
struct Axis {
  double lo = 0;
  double hi = 1;
  double step = 1;
  std::vector<double> ticks() const;
};
// The smallest "nice" axis from `lo` covering `hi` with about `target_ticks` intervals; an
// empty range (hi <= lo) becomes [lo, lo + 1].
Axis nice_axis(double lo, double hi, int target_ticks = 6);

// Where the plot area sits in the image and how data map onto it. The legend column is to the
// right of the plot area.
struct Frame {
  double width = 960;
  double height = 400;
  double left = 72;    // margin left of the plot area (y tick labels, y label)
  double right = 200;  // margin right of the plot area (legend)
  double top = 56;     // title and subtitle
  double bottom = 52;  // x tick labels and x label
  Axis x;
  Axis y;

  double plot_left() const { return left; }
  double plot_top() const { return top; }
  double plot_width() const { return width - left - right; }
  double plot_height() const { return height - top - bottom; }
  double plot_right() const { return left + plot_width(); }
  double plot_bottom() const { return top + plot_height(); }
  // Data -> pixel coordinates (y grows downwards in SVG).
  double px(double xv) const { return left + (xv - x.lo) / (x.hi - x.lo) * plot_width(); }
  double py(double yv) const { return plot_bottom() - (yv - y.lo) / (y.hi - y.lo) * plot_height(); }
};

enum class LegendMark { kLine, kBox };
struct LegendEntry {
  std::string label;
  std::string color;
  LegendMark mark = LegendMark::kLine;
  std::string dash;          // stroke-dasharray for kLine, empty: solid
  std::string stroke;        // outline of a kBox, empty: none
  bool hatched = false;      // kBox drawn with the hatch pattern `hatch_id` over it
};

// Pieces of a chart, appended to `out`. `id` prefixes the ids the chart defines (clip path,
// patterns) so that several charts can be inlined in one HTML page.
void open_svg(std::string& out, const Frame& f, const std::string& id, const std::string& title);
void close_svg(std::string& out);
// Title (bold) and an optional subtitle line under it.
void draw_title(std::string& out, const Frame& f, const std::string& title, const std::string& subtitle);
// Background of the plot area, horizontal grid lines at the y ticks, and a clip path
// "<id>-clip" of the plot area for the data.
void draw_plot_area(std::string& out, const Frame& f, const std::string& id, bool y_grid);
// Axis lines, ticks and tick labels, axis labels. `y_suffix` is appended to y tick labels.
void draw_x_axis(std::string& out, const Frame& f, const std::string& label);
void draw_y_axis(std::string& out, const Frame& f, const std::string& label, const std::string& y_suffix);
// The legend, top to bottom in the right margin, then `notes` (e.g. "downsampled") in small
// grey text under it. Entries that do not fit are summarised as "+N more"; long labels are
// shortened with an ellipsis. `hatch_id`: the pattern used by hatched boxes.
void draw_legend(std::string& out, const Frame& f, const std::vector<LegendEntry>& entries,
                 const std::vector<std::string>& notes, const std::string& hatch_id = "");
// A diagonal-hatch <pattern> with this id (inside <defs>).
void define_hatch(std::string& out, const std::string& pattern_id, const std::string& color);

// An x/y chart: series share the x values; kStackedArea series are stacked in order (each on
// the previous stacked ones), kLine series are plotted as is. Both interpolate linearly.
struct Series {
  enum class Style { kLine, kStackedArea };
  std::string label;
  std::string color;
  Style style = Style::kLine;
  std::string dash;  // stroke-dasharray for lines
  std::vector<double> y;
};

struct RefLine {  // a horizontal reference line across the plot, labelled at its right end
  double y = 0;
  std::string label;
  std::string color = "#444444";
  std::string dash = "6 4";
};

struct ChartSpec {
  std::string id;  // prefix for ids, e.g. "cores-running"
  std::string title;
  std::string subtitle;
  std::string x_label;
  std::string y_label;
  std::string y_suffix;  // e.g. "%"
  std::vector<double> x;
  std::vector<Series> series;
  std::vector<RefLine> ref_lines;
  std::vector<std::string> notes;
  double x_min = 0;      // the x axis starts here and covers at least up to x_max
  double x_max = 0;
  double y_min_top = 0;  // the y axis covers at least [0, y_min_top] (besides the data)
  double y_fixed_top = 0;  // > 0: the y axis is exactly [0, y_fixed_top] (data above are clipped)
  std::size_t max_points = 1500;  // more x values than this are averaged in equal buckets
  double width = 960;
  double height = 400;
};

// The frame line_chart_svg uses for `spec` (after any downsampling), for callers and tests
// that need the pixel position of a value.
Frame chart_frame(const ChartSpec& spec);

// Reduces x and every series to at most `max_points` points by averaging consecutive buckets
// of k = ceil(n / max_points) samples (the mean keeps stacked sums and areas consistent).
// Returns k (1: unchanged).
std::size_t downsample_mean(std::vector<double>& x, std::vector<Series>& series, std::size_t max_points);

// The whole chart as a standalone SVG document (with an XML declaration). Throws
// std::invalid_argument if a series' length differs from x's.
std::string line_chart_svg(ChartSpec spec);

// An SVG document without its leading XML declaration, for inlining in HTML.
std::string_view strip_xml_declaration(std::string_view svg_document);

}  // namespace kubesim::svg
