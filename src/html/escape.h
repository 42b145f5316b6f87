// Text made safe for an HTML page or an inline SVG: every piece of text the
// report takes from its inputs (file names, CSV cells, labels) goes through
// escape(), so no input can end an element, open a tag or start a script.
#pragma once

#include <string>
#include <string_view>

namespace podsim::html {

// `text` with & < > " ' as character references, and the control characters
// XML 1.0 refuses (all below U+0020 but tab, LF and CR) as U+FFFD, so the
// result is valid in element content and in a quoted attribute of HTML and
// SVG alike. The input is UTF-8 (the readers refuse anything else); other
// bytes are copied. O(size).
std::string escape(std::string_view text);

}  // namespace podsim::html
