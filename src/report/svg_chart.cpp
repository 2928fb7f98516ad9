#include "report/svg_chart.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace kubesim::svg {

namespace {

constexpr double kLegendRow = 18;
constexpr double kNoteRow = 13;
constexpr std::size_t kLegendLabelMax = 26;  // characters
constexpr std::size_t kNoteLineMax = 34;

// The font size (at most `size`, at least 8) at which `text` fits `width` px, a character
// taking about `em` x the size (Helvetica's mean advance is about 0.55 em; bold 0.6): a long
// title shrinks rather than runs off the chart.
double fitting_font_size(const std::string& text, double size, double em, double width) {
  std::size_t chars = 0;
  for (const char c : text) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  const double needed = static_cast<double>(chars) * em * size;
  if (needed <= width) return size;
  return std::max(8.0, std::floor(size * width / needed * 10) / 10);
}

// Greedy word wrap at `width` characters; words longer than that are cut.
std::vector<std::string> wrap(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t sp = text.find(' ', i);
    std::string word = text.substr(i, sp == std::string::npos ? std::string::npos : sp - i);
    i = sp == std::string::npos ? text.size() : sp + 1;
    if (word.empty()) continue;
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
    while (line.size() > width) {
      lines.push_back(line.substr(0, width));
      line.erase(0, width);
    }
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

int tick_decimals(double step) {
  if (step >= 1) return 0;
  return std::min(6, static_cast<int>(std::ceil(-std::log10(step) - 1e-9)));
}

void append_points(std::string& out, const std::vector<double>& xs, const std::vector<double>& ys, const Frame& f) {
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (i) out += ' ';
    out += num(f.px(xs[i]));
    out += ',';
    out += num(f.py(ys[i]));
  }
}

}  // namespace

std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string num(double v, int decimals) {
  if (!std::isfinite(v)) return "0";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

const std::string& palette_color(std::size_t i) {
  static const std::array<std::string, 10> kPalette = {"#1f77b4", "#2ca02c", "#d62728", "#ff7f0e", "#9467bd",
                                                       "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return kPalette[i % kPalette.size()];
}

std::vector<double> Axis::ticks() const {
  std::vector<double> out;
  if (!(step > 0) || !(hi > lo)) return out;
  const auto n = static_cast<long long>(std::floor((hi - lo) / step + 1e-9));
  for (long long i = 0; i <= n && i <= 1000; ++i) out.push_back(lo + static_cast<double>(i) * step);
  return out;
}

Axis nice_axis(double lo, double hi, int target_ticks) {
  Axis a;
  a.lo = lo;
  if (!(hi > lo) || !std::isfinite(hi)) hi = lo + 1;
  const double raw = (hi - lo) / std::max(1, target_ticks);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * mag;
  for (const double m : {1.0, 2.0, 5.0}) {
    if (m * mag >= raw * (1 - 1e-9)) {
      step = m * mag;
      break;
    }
  }
  a.step = step;
  a.hi = lo + std::ceil((hi - lo) / step - 1e-9) * step;
  return a;
}

void open_svg(std::string& out, const Frame& f, const std::string& id, const std::string& title) {
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"";
  out += escape(id);
  out += "\" width=\"" + num(f.width) + "\" height=\"" + num(f.height) + "\" viewBox=\"0 0 " + num(f.width) + ' ' +
         num(f.height) + "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\" role=\"img\">\n";
  out += "<title>" + escape(title) + "</title>\n";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
}

void close_svg(std::string& out) { out += "</svg>\n"; }

void draw_title(std::string& out, const Frame& f, const std::string& title, const std::string& subtitle) {
  out += "<text class=\"chart-title\" x=\"" + num(f.width / 2) + "\" y=\"22\" text-anchor=\"middle\" font-size=\"" +
         num(fitting_font_size(title, 16, 0.62, f.width - 16)) + "\" font-weight=\"bold\">" + escape(title) + "</text>\n";
  if (!subtitle.empty())
    out += "<text class=\"chart-subtitle\" x=\"" + num(f.width / 2) + "\" y=\"40\" text-anchor=\"middle\" font-size=\"" +
           num(fitting_font_size(subtitle, 11, 0.58, f.width - 16)) + "\" fill=\"#555555\">" + escape(subtitle) +
           "</text>\n";
}

void draw_plot_area(std::string& out, const Frame& f, const std::string& id, bool y_grid) {
  const std::string x0 = num(f.plot_left());
  const std::string x1 = num(f.plot_right());
  out += "<defs><clipPath id=\"" + escape(id) + "-clip\"><rect x=\"" + x0 + "\" y=\"" + num(f.plot_top()) +
         "\" width=\"" + num(f.plot_width()) + "\" height=\"" + num(f.plot_height()) + "\"/></clipPath></defs>\n";
  out += "<rect class=\"plot-area\" x=\"" + x0 + "\" y=\"" + num(f.plot_top()) + "\" width=\"" +
         num(f.plot_width()) + "\" height=\"" + num(f.plot_height()) + "\" fill=\"#fafafa\" stroke=\"none\"/>\n";
  if (!y_grid) return;
  out += "<g class=\"grid\" stroke=\"#e0e0e0\" stroke-width=\"1\">\n";
  for (const double t : f.y.ticks()) {
    const std::string y = num(f.py(t));
    out += "<line x1=\"" + x0 + "\" y1=\"" + y + "\" x2=\"" + x1 + "\" y2=\"" + y + "\"/>\n";
  }
  out += "</g>\n";
}

void draw_x_axis(std::string& out, const Frame& f, const std::string& label) {
  const std::string yb = num(f.plot_bottom());
  out += "<g class=\"x-axis\">\n";
  out += "<line x1=\"" + num(f.plot_left()) + "\" y1=\"" + yb + "\" x2=\"" + num(f.plot_right()) + "\" y2=\"" + yb +
         "\" stroke=\"#333333\"/>\n";
  const int dec = tick_decimals(f.x.step);
  for (const double t : f.x.ticks()) {
    const std::string x = num(f.px(t));
    out += "<line x1=\"" + x + "\" y1=\"" + yb + "\" x2=\"" + x + "\" y2=\"" + num(f.plot_bottom() + 5) +
           "\" stroke=\"#333333\"/>";
    out += "<text class=\"tick-label\" x=\"" + x + "\" y=\"" + num(f.plot_bottom() + 18) +
           "\" text-anchor=\"middle\">" + num(t, dec) + "</text>\n";
  }
  out += "<text class=\"axis-label\" x=\"" + num(f.plot_left() + f.plot_width() / 2) + "\" y=\"" +
         num(f.plot_bottom() + 40) + "\" text-anchor=\"middle\" font-size=\"13\">" + escape(label) + "</text>\n";
  out += "</g>\n";
}

void draw_y_axis(std::string& out, const Frame& f, const std::string& label, const std::string& y_suffix) {
  const std::string xl = num(f.plot_left());
  out += "<g class=\"y-axis\">\n";
  out += "<line x1=\"" + xl + "\" y1=\"" + num(f.plot_top()) + "\" x2=\"" + xl + "\" y2=\"" + num(f.plot_bottom()) +
         "\" stroke=\"#333333\"/>\n";
  const int dec = tick_decimals(f.y.step);
  for (const double t : f.y.ticks()) {
    const std::string y = num(f.py(t));
    out += "<line x1=\"" + num(f.plot_left() - 5) + "\" y1=\"" + y + "\" x2=\"" + xl + "\" y2=\"" + y +
           "\" stroke=\"#333333\"/>";
    out += "<text class=\"tick-label\" x=\"" + num(f.plot_left() - 8) + "\" y=\"" + num(f.py(t) + 4) +
           "\" text-anchor=\"end\">" + num(t, dec) + escape(y_suffix) + "</text>\n";
  }
  const std::string cx = num(16);
  const std::string cy = num(f.plot_top() + f.plot_height() / 2);
  out += "<text class=\"axis-label\" x=\"" + cx + "\" y=\"" + cy + "\" text-anchor=\"middle\" font-size=\"13\" " +
         "transform=\"rotate(-90 " + cx + ' ' + cy + ")\">" + escape(label) + "</text>\n";
  out += "</g>\n";
}

void draw_legend(std::string& out, const Frame& f, const std::vector<LegendEntry>& entries,
                 const std::vector<std::string>& notes, const std::string& hatch_id) {
  std::vector<std::string> note_lines;
  for (const auto& n : notes)
    for (auto& l : wrap(n, kNoteLineMax)) note_lines.push_back(std::move(l));
  const double x = f.plot_right() + 16;
  const double available = f.height - f.plot_top() - 8 - static_cast<double>(note_lines.size()) * kNoteRow;
  // A label longer than a legend line wraps (never cut); entries are shown while they fit,
  // keeping a row for "+N more".
  std::vector<std::vector<std::string>> labels;
  for (const LegendEntry& e : entries) labels.push_back(wrap(e.label, kLegendLabelMax));
  const auto height_of = [&](std::size_t i) { return kLegendRow + static_cast<double>(labels[i].size() - 1) * kNoteRow; };
  double total = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) total += height_of(i);
  std::size_t shown = entries.size();
  if (total > available) {
    double used = kLegendRow;  // the "+N more" row
    for (shown = 0; shown < entries.size() && used + height_of(shown) <= available; ++shown) used += height_of(shown);
  }
  double y = f.plot_top() + 6;
  out += "<g class=\"legend\">\n";
  for (std::size_t i = 0; i < shown; ++i) {
    const LegendEntry& e = entries[i];
    out += "<g class=\"legend-entry\" data-series=\"" + escape(e.label) + "\">";
    if (e.mark == LegendMark::kLine) {
      out += "<line x1=\"" + num(x) + "\" y1=\"" + num(y + 6) + "\" x2=\"" + num(x + 24) + "\" y2=\"" + num(y + 6) +
             "\" stroke=\"" + escape(e.color) + "\" stroke-width=\"2.5\"";
      if (!e.dash.empty()) out += " stroke-dasharray=\"" + escape(e.dash) + "\"";
      out += "/>";
    } else {
      const std::string geom = "x=\"" + num(x + 4) + "\" y=\"" + num(y) + "\" width=\"16\" height=\"12\"";
      out += "<rect " + geom + " fill=\"" + escape(e.color) + "\"";
      if (!e.stroke.empty()) out += " stroke=\"" + escape(e.stroke) + "\" stroke-width=\"1.5\"";
      out += "/>";
      if (e.hatched && !hatch_id.empty()) out += "<rect " + geom + " fill=\"url(#" + escape(hatch_id) + ")\"/>";
    }
    for (std::size_t k = 0; k < labels[i].size(); ++k)
      out += "<text x=\"" + num(x + 30) + "\" y=\"" + num(y + 10 + static_cast<double>(k) * kNoteRow) + "\">" +
             escape(labels[i][k]) + "</text>";
    out += "</g>\n";
    y += height_of(i);
  }
  if (shown < entries.size()) {
    out += "<text class=\"legend-more\" x=\"" + num(x) + "\" y=\"" + num(y + 10) + "\" fill=\"#555555\">+" +
           std::to_string(entries.size() - shown) + " more</text>\n";
    y += kLegendRow;
  }
  y += 6;
  for (const auto& l : note_lines) {
    out += "<text class=\"note\" x=\"" + num(x) + "\" y=\"" + num(y + 9) + "\" font-size=\"10\" fill=\"#555555\">" +
           escape(l) + "</text>\n";
    y += kNoteRow;
  }
  out += "</g>\n";
}

void define_hatch(std::string& out, const std::string& pattern_id, const std::string& color) {
  out += "<defs><pattern id=\"" + escape(pattern_id) +
         "\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\" patternTransform=\"rotate(45)\">"
         "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"" +
         escape(color) + "\" stroke-width=\"2\"/></pattern></defs>\n";
}

std::size_t downsample_mean(std::vector<double>& x, std::vector<Series>& series, std::size_t max_points) {
  const std::size_t n = x.size();
  if (max_points == 0 || n <= max_points) return 1;
  const std::size_t k = (n + max_points - 1) / max_points;
  const auto reduce = [&](std::vector<double>& v) {
    std::vector<double> out;
    out.reserve((n + k - 1) / k);
    for (std::size_t b = 0; b < n; b += k) {
      const std::size_t e = std::min(n, b + k);
      double sum = 0;
      for (std::size_t i = b; i < e; ++i) sum += v[i];
      out.push_back(sum / static_cast<double>(e - b));
    }
    v = std::move(out);
  };
  reduce(x);
  for (auto& s : series) reduce(s.y);
  return k;
}

namespace {

void validate(const ChartSpec& spec) {
  for (const auto& s : spec.series)
    if (s.y.size() != spec.x.size())
      throw std::invalid_argument("chart " + spec.id + ": series " + s.label + " has " + std::to_string(s.y.size()) +
                                  " values for " + std::to_string(spec.x.size()) + " x values");
}

// The top of the data: the largest stacked sum or line value.
double data_top(const ChartSpec& spec) {
  double top = 0;
  std::vector<double> stack(spec.x.size(), 0.0);
  for (const auto& s : spec.series) {
    for (std::size_t i = 0; i < s.y.size(); ++i) {
      double v = s.y[i];
      if (s.style == Series::Style::kStackedArea) {
        stack[i] += v;
        v = stack[i];
      }
      if (std::isfinite(v)) top = std::max(top, v);
    }
  }
  for (const auto& r : spec.ref_lines) top = std::max(top, r.y);
  return top;
}

Frame frame_of_reduced(const ChartSpec& spec) {
  Frame f;
  f.width = spec.width;
  f.height = spec.height;
  double x_hi = spec.x_max;
  for (const double v : spec.x) x_hi = std::max(x_hi, v);
  f.x = nice_axis(spec.x_min, x_hi, 8);
  if (spec.y_fixed_top > 0) {
    f.y = nice_axis(0, spec.y_fixed_top, 5);
    f.y.hi = spec.y_fixed_top;
  } else {
    f.y = nice_axis(0, std::max(spec.y_min_top, data_top(spec)), 5);
  }
  return f;
}

}  // namespace

Frame chart_frame(const ChartSpec& spec) {
  validate(spec);
  ChartSpec copy = spec;
  downsample_mean(copy.x, copy.series, copy.max_points);
  return frame_of_reduced(copy);
}

std::string line_chart_svg(ChartSpec spec) {
  validate(spec);
  const std::size_t k = downsample_mean(spec.x, spec.series, spec.max_points);
  if (k > 1) spec.notes.push_back("Each point is the mean of " + std::to_string(k) + " consecutive samples.");
  if (spec.x.empty()) spec.notes.push_back("No samples.");
  const Frame f = frame_of_reduced(spec);

  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out.reserve(4096 + spec.x.size() * spec.series.size() * 24);
  open_svg(out, f, spec.id, spec.title);
  draw_title(out, f, spec.title, spec.subtitle);
  draw_plot_area(out, f, spec.id, true);

  out += "<g class=\"data\" clip-path=\"url(#" + escape(spec.id) + "-clip)\">\n";
  // Stacked areas first (in order), then lines on top.
  std::vector<double> base(spec.x.size(), 0.0);
  for (const auto& s : spec.series) {
    if (s.style != Series::Style::kStackedArea || spec.x.empty()) continue;
    std::vector<double> upper(base.size());
    for (std::size_t i = 0; i < base.size(); ++i) upper[i] = base[i] + s.y[i];
    out += "<polygon class=\"series-area\" data-series=\"" + escape(s.label) + "\" fill=\"" + escape(s.color) +
           "\" fill-opacity=\"0.85\" stroke=\"" + escape(s.color) + "\" stroke-width=\"0.5\" points=\"";
    append_points(out, spec.x, upper, f);
    for (std::size_t i = base.size(); i-- > 0;) {
      out += ' ';
      out += num(f.px(spec.x[i]));
      out += ',';
      out += num(f.py(base[i]));
    }
    out += "\"/>\n";
    base = std::move(upper);
  }
  for (const auto& s : spec.series) {
    if (s.style != Series::Style::kLine || spec.x.empty()) continue;
    out += "<polyline class=\"series-line\" data-series=\"" + escape(s.label) + "\" fill=\"none\" stroke=\"" +
           escape(s.color) + "\" stroke-width=\"2\" stroke-linejoin=\"round\"";
    if (!s.dash.empty()) out += " stroke-dasharray=\"" + escape(s.dash) + "\"";
    out += " points=\"";
    append_points(out, spec.x, s.y, f);
    out += "\"/>\n";
  }
  out += "</g>\n";

  for (const auto& r : spec.ref_lines) {
    const std::string y = num(f.py(r.y));
    out += "<g class=\"ref-line\" data-value=\"" + num(r.y, 6) + "\"><line class=\"ref-line\" x1=\"" +
           num(f.plot_left()) + "\" y1=\"" + y + "\" x2=\"" + num(f.plot_right()) + "\" y2=\"" + y + "\" stroke=\"" +
           escape(r.color) + "\" stroke-width=\"1.5\"";
    if (!r.dash.empty()) out += " stroke-dasharray=\"" + escape(r.dash) + "\"";
    out += "/>";
    if (!r.label.empty())
      out += "<text x=\"" + num(f.plot_right() - 6) + "\" y=\"" + num(f.py(r.y) - 5) +
             "\" text-anchor=\"end\" font-size=\"12\" font-weight=\"bold\" fill=\"" + escape(r.color) + "\">" +
             escape(r.label) + "</text>";
    out += "</g>\n";
  }

  draw_x_axis(out, f, spec.x_label);
  draw_y_axis(out, f, spec.y_label, spec.y_suffix);

  std::vector<LegendEntry> legend;
  for (const auto& s : spec.series) {
    LegendEntry e;
    e.label = s.label;
    e.color = s.color;
    e.mark = s.style == Series::Style::kStackedArea ? LegendMark::kBox : LegendMark::kLine;
    e.dash = s.dash;
    legend.push_back(std::move(e));
  }
  for (const auto& r : spec.ref_lines) {
    if (r.label.empty()) continue;
    legend.push_back(LegendEntry{r.label, r.color, LegendMark::kLine, r.dash, "", false});
  }
  draw_legend(out, f, legend, spec.notes);
  close_svg(out);
  return out;
}

std::string_view strip_xml_declaration(std::string_view doc) {
  if (doc.substr(0, 5) == "<?xml") {
    const std::size_t end = doc.find("?>");
    if (end != std::string_view::npos) {
      doc.remove_prefix(end + 2);
      while (!doc.empty() && (doc.front() == '\n' || doc.front() == '\r')) doc.remove_prefix(1);
    }
  }
  return doc;
}

}  // namespace kubesim::svg
