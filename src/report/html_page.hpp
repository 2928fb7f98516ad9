// The opening of kubesim's self-contained HTML reports: doctype, title, the shared style
// sheet (tables, parameter tables, charts) and the page's <h1>. `title` is escaped.
#pragma once

#include <string>

#include "report/svg_chart.hpp"

namespace kubesim {

inline std::string html_report_head(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + svg::escape(title) +
         "</title>\n<style>\n"
         "body{font-family:Helvetica,Arial,sans-serif;margin:24px auto;max-width:1100px;padding:0 12px;color:#222;}\n"
         "h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ccc;}h3{font-size:15px;}\n"
         "table{border-collapse:collapse;font-size:13px;margin:8px 0;}.table-wrap{overflow-x:auto;}\n"
         "th,td{border:1px solid #ccc;padding:3px 8px;text-align:right;vertical-align:top;}\n"
         "th{background:#f0f0f0;}td:first-child,th:first-child{text-align:left;}table.params td{text-align:left;}\n"
         "small{color:#666;}li{margin:4px 0;}\n"
         "figure.chart{margin:12px 0;}figure.chart svg{max-width:100%;height:auto;border:1px solid #ddd;}\n"
         "</style>\n</head>\n<body>\n<h1>" +
         svg::escape(title) + "</h1>\n";
}

}  // namespace kubesim
