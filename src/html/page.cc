#include "html/page.h"

#include "html/escape.h"
#include "html/sections.h"

namespace podsim::html {

namespace {

constexpr const char* kStyle = R"css(
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: #222;
       margin: 24px auto; max-width: 1280px; padding: 0 16px; }
h1 { font-size: 22px; margin-bottom: 4px; }
h2 { font-size: 18px; border-bottom: 1px solid #ddd; padding-bottom: 4px; margin-top: 32px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
.src, .note { color: #666; font-size: 12px; margin: 2px 0 8px; }
.row { display: flex; flex-wrap: wrap; gap: 12px; }
svg { background: #fff; border: 1px solid #eee; font-family: inherit; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-size: 12px; margin: 6px 0; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; white-space: nowrap; }
th { background: #f4f4f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
details { margin: 8px 0; }
summary { cursor: pointer; font-size: 13px; }
ul.files { font-size: 13px; }
)css";

}  // namespace

std::string render_page(const ReportInputs& in) {
  std::string body;
  // The pictures first, then the tables of inputs they were drawn from.
  for (const report::CsvDocument& results : in.results) {
    body += breakdown_section(results);
    body += sweep_section(results);
  }
  body += frontier_section(in.frontiers);
  body += serve_section(in);
  body += capacity_section(in.capacity);
  for (const report::CsvDocument& results : in.results) {
    body += inputs_section(results);
  }
  if (body.empty()) {
    throw ReportInputError(
        "nothing to draw: the inputs hold no result rows, serve outputs, "
        "capacity search or search frontier");
  }
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>podsim report</title>\n<style>";
  page += kStyle;
  page += "</style>\n</head>\n<body>\n<h1>podsim report</h1>\n<p class=\"src\">podsim ";
  page += PODSIM_VERSION;
  page += "; from</p>\n<ul class=\"files\">\n";
  for (const std::string& f : in.files) {
    page += "<li>";
    page += escape(f);
    page += "</li>\n";
  }
  page += "</ul>\n";
  page += body;
  page += "</body>\n</html>\n";
  return page;
}

}  // namespace podsim::html
