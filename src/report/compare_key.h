// How `podsim compare` tells that two key cells name the same input: a
// number by its value, anything else by its text.
//
// A spreadsheet rewrites numbers as it reads and saves a CSV: podsim writes
// `1.97e+14`, `1.5e+09` and `0.10000000000000001`; LibreOffice and Excel keep
// 15 significant digits and write `197000000000000`, `1500000000` and `0.1`.
// So a key cell that reads whole as a number (std::from_chars, general
// format: `3`, `3.0`, `3e0`, `-0`, `inf`, `nan`) is replaced by a canonical
// form before rows are hashed: the value rounded to 15 significant digits
// (what a spreadsheet keeps), then to 12, written in scientific notation;
// -0 and 0 are `0`, every NaN is `nan`, infinities `inf` and `-inf`.
// Matching stays a hash look-up, O(cells), never a pairwise search.
//
// What matches, and the boundary cases:
// - two cells whose values agree to 15 significant digits always match
//   (every spreadsheet round trip: each side rounds to the same 15 digits);
// - two cells whose values differ in their first 12 significant digits
//   never match (a relative difference above about 1e-11);
// - in between (relative differences from about 1e-15 to 1e-11, that is
//   around the nominal 1e-12) they match unless a rounding boundary of the
//   12th digit lies between them: 1.2345678901249 and 1.2345678901251 do
//   not match, 1.2345678901241 and 1.2345678901249 do;
// - an empty cell matches only an empty cell; text (names, hashes, `true`)
//   matches only the same text, byte for byte; a number too large for a
//   double (`1e999`) is text.
#pragma once

#include <string>
#include <string_view>

namespace podsim::report {

// The form of a key cell that rows are matched by (see above). O(length).
std::string canonical_key_cell(std::string_view cell);

// The same, appended to `out` (a row's key) without a string of its own.
void append_canonical_key_cell(std::string_view cell, std::string& out);

// Whether two key cells name the same input: their canonical forms agree.
bool same_key_cell(std::string_view a, std::string_view b);

}  // namespace podsim::report
