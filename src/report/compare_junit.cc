#include "report/compare_junit.h"

#include <cstdio>
#include <map>
#include <vector>

#include "report/format.h"

namespace podsim::report {
namespace {

struct Case {
  std::string name;
  std::string failure_type;  // empty when it passed
  std::string failure_message;
  std::string failure_text;
};

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.4g%%", 100.0 * fraction);
  return buf;
}

std::string moved_line(const MovedValue& m) {
  std::string line = m.column + ": " + m.baseline + " -> " + m.current;
  if (m.rel_delta) {
    line += " (" + percent(*m.rel_delta) + ")";
  } else if (m.delta) {
    line += " (delta " + format_double(*m.delta) + ")";
  }
  if (m.allowed) {
    line += ", allowed " + format_double(*m.allowed);
  }
  return line;
}

std::vector<Case> cases_of(const Comparison& c) {
  std::map<std::string, std::vector<const MovedValue*>> moved_by_key;
  for (const MovedValue& m : c.moved) {
    moved_by_key[m.scenario.key_text()].push_back(&m);
  }
  std::vector<Case> cases;
  for (const Scenario& s : c.matched) {
    Case k;
    k.name = s.label;
    const auto it = moved_by_key.find(s.key_text());
    if (it != moved_by_key.end()) {
      k.failure_type = "moved";
      k.failure_message = std::to_string(it->second.size()) +
                          (it->second.size() == 1 ? " value moved" : " values moved");
      for (const MovedValue* m : it->second) {
        k.failure_text += moved_line(*m) + "\n";
      }
      k.failure_text += "key: " + s.key_text() + "\n";
    }
    cases.push_back(std::move(k));
  }
  for (const auto& [list, type, message] :
       {std::tuple{&c.disappeared, "disappeared", "in the baseline only"},
        std::tuple{&c.appeared, "appeared", "in the current file only"}}) {
    for (const Scenario& s : *list) {
      cases.push_back({.name = s.label,
                       .failure_type = type,
                       .failure_message = message,
                       .failure_text = "key: " + s.key_text(c.shown_key) + "\n"});
    }
  }
  std::map<std::string, int> seen;
  for (Case& k : cases) {
    const int n = ++seen[k.name];
    if (n > 1) {
      k.name += " #" + std::to_string(n);
    }
  }
  return cases;
}

}  // namespace

std::string xml_escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto u = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 has no control characters but tab, line feed and return.
        out += u < 0x20 && ch != '\t' && ch != '\n' && ch != '\r' ? '?' : ch;
    }
  }
  return out;
}

void render_junit(const CompareInputs& in, const Comparison& c, std::string_view suite,
                  std::ostream& out) {
  const std::vector<Case> cases = cases_of(c);
  size_t failures = 0;
  for (const Case& k : cases) {
    failures += k.failure_type.empty() ? 0 : 1;
  }
  const std::string counts = " tests=\"" + std::to_string(cases.size()) + "\" failures=\"" +
                             std::to_string(failures) + "\" errors=\"0\" skipped=\"0\"";
  const std::string name = xml_escaped(suite);
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"podsim compare\"" << counts << ">\n"
      << "<testsuite name=\"" << name << "\"" << counts << ">\n"
      << "<properties><property name=\"baseline\" value=\"" << xml_escaped(in.baseline_file)
      << "\"/><property name=\"current\" value=\"" << xml_escaped(in.current_file)
      << "\"/></properties>\n";
  for (const Case& k : cases) {
    out << "<testcase classname=\"" << name << "\" name=\"" << xml_escaped(k.name) << "\"";
    if (k.failure_type.empty()) {
      out << "/>\n";
      continue;
    }
    out << "><failure type=\"" << k.failure_type << "\" message=\""
        << xml_escaped(k.failure_message) << "\">" << xml_escaped(k.failure_text)
        << "</failure></testcase>\n";
  }
  out << "</testsuite>\n</testsuites>\n";
}

}  // namespace podsim::report
