// The opening of kubesim's self-contained HTML reports: doctype, title, the shared style
// sheet (tables, parameter tables, charts, the headline) and the page's <h1>; and the headline
// every report opens with: the sentence that answers and the decisive chart. `title` and
// `sentence` are escaped.
#pragma once

#include <string>

#include "report/svg_chart.hpp"

namespace kubesim {

// The shared style sheet (without <style>), for pages that write their own head.
inline const char* html_report_css() {
  return "body{font-family:Helvetica,Arial,sans-serif;margin:24px auto;max-width:1100px;padding:0 12px;color:#222;}\n"
         "h1{font-size:24px;margin-bottom:4px;}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ccc;}"
         "h3{font-size:15px;}\n"
         "table{border-collapse:collapse;font-size:13px;margin:8px 0;}.table-wrap{overflow-x:auto;}\n"
         "th,td{border:1px solid #ccc;padding:3px 8px;text-align:right;vertical-align:top;}\n"
         "th{background:#f0f0f0;}td:first-child,th:first-child{text-align:left;}table.params td{text-align:left;}\n"
         "small{color:#666;}li{margin:4px 0;}\n"
         "figure.chart{margin:12px 0;}figure.chart svg{max-width:100%;height:auto;border:1px solid #ddd;}\n"
         "section.headline p.answer{font-size:19px;line-height:1.4;margin:10px 0;}\n"
         "section.headline figure{margin:8px 0;}section.headline figcaption{color:#555;font-size:13px;}\n";
}

// `extra_css`: the page's own rules after the shared ones (as is).
inline std::string html_report_head(const std::string& title, const std::string& extra_css = "") {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + svg::escape(title) +
         "</title>\n<style>\n" + html_report_css() + extra_css + "</style>\n</head>\n<body>\n<h1>" + svg::escape(title) +
         "</h1>\n";
}

// The headline section: the answering sentence (escaped) and the decisive chart (an inline SVG
// or other HTML, as is) with its caption (escaped; empty: none).
inline std::string html_headline(const std::string& sentence, const std::string& chart_html,
                                 const std::string& caption) {
  std::string out = "<section class=\"headline\" id=\"headline\">\n<p class=\"answer\">" + svg::escape(sentence) + "</p>\n";
  if (!chart_html.empty()) {
    out += "<figure class=\"chart\">\n" + chart_html;
    if (!caption.empty()) out += "<figcaption>" + svg::escape(caption) + "</figcaption>\n";
    out += "</figure>\n";
  }
  return out + "</section>\n";
}

}  // namespace kubesim
