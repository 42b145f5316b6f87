#include "hlo/attribute_values.h"

#include <charconv>
#include <limits>
#include <string>

namespace podsim::hlo::internal {
namespace {

// Parses all of `s` as an int64 (optional leading '-').
bool to_int(std::string_view s, int64_t& out) {
  if (s.empty()) {
    return false;
  }
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

// Splits `s` at every `sep`.
std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t at = s.find(sep, start);
    parts.push_back(s.substr(start, at == std::string_view::npos ? at : at - start));
    if (at == std::string_view::npos) {
      return parts;
    }
    start = at + 1;
  }
}

}  // namespace

std::vector<WindowDim> parse_window(Lexer& lex) {
  std::vector<WindowDim> dims;
  bool sized = false;
  lex.expect('{', "to open the window");
  while (!lex.consume('}')) {
    const std::string_view key = lex.expect_name("a window field (size, stride, pad, ...)");
    lex.expect('=', "after window field " + std::string(key));
    const uint32_t at = lex.offset();
    const std::string_view value = lex.raw_value("the window");
    const std::vector<std::string_view> items = split(value, 'x');
    if (!sized) {
      if (items.size() > static_cast<size_t>(kMaxRank)) {
        lex.fail_at(at, "window has more than " + std::to_string(kMaxRank) + " dimensions");
      }
      dims.resize(items.size());
      sized = true;
    }
    if (items.size() != dims.size()) {
      lex.fail_at(at, "window field " + std::string(key) + " has " + std::to_string(items.size()) +
                          " dimensions, expected " + std::to_string(dims.size()));
    }
    for (size_t i = 0; i < items.size(); ++i) {
      WindowDim& d = dims[i];
      bool ok = true;
      if (key == "pad") {
        const std::vector<std::string_view> lo_hi = split(items[i], '_');
        ok = lo_hi.size() == 2 && to_int(lo_hi[0], d.pad_low) && to_int(lo_hi[1], d.pad_high);
      } else if (key == "size") {
        ok = to_int(items[i], d.size) && d.size >= 0;
      } else if (key == "stride") {
        ok = to_int(items[i], d.stride) && d.stride >= 1;
      } else if (key == "lhs_dilate") {
        ok = to_int(items[i], d.lhs_dilation) && d.lhs_dilation >= 1;
      } else if (key == "rhs_dilate") {
        ok = to_int(items[i], d.rhs_dilation) && d.rhs_dilation >= 1;
      } else if (key == "window_reversal") {
        int64_t r = 0;
        ok = to_int(items[i], r) && (r == 0 || r == 1);
        d.reversal = r == 1;
      }  // other fields: accepted and ignored
      if (!ok) {
        lex.fail_at(
            at, "bad window " + std::string(key) + " '" + std::string(value) + "': expected " +
                    (key == "pad" ? "LOW_HIGH pairs" : "positive integers") + " separated by 'x'");
      }
    }
    lex.consume(',');
  }
  return dims;
}

namespace {

// One side of dim_labels: `letters` are its two non-spatial labels.
bool decode_labels(std::string_view s, char first, char second, int64_t& first_dim,
                   int64_t& second_dim, std::vector<int64_t>& spatial) {
  first_dim = -1;
  second_dim = -1;
  std::vector<int64_t> by_digit(10, -1);
  size_t spatial_count = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const auto dim = static_cast<int64_t>(i);
    if (c == first && first_dim < 0) {
      first_dim = dim;
    } else if (c == second && second_dim < 0) {
      second_dim = dim;
    } else if (c >= '0' && c <= '9' && by_digit[static_cast<size_t>(c - '0')] < 0) {
      by_digit[static_cast<size_t>(c - '0')] = dim;
      ++spatial_count;
    } else {
      return false;
    }
  }
  spatial.clear();
  for (size_t k = 0; k < spatial_count; ++k) {
    if (by_digit[k] < 0) {
      return false;  // spatial labels must be 0..n-1
    }
    spatial.push_back(by_digit[k]);
  }
  return first_dim >= 0 && second_dim >= 0;
}

}  // namespace

ConvDimLabels parse_dim_labels(Lexer& lex) {
  const uint32_t at = lex.offset();
  // The value holds "->", which raw_value would stop at no character of:
  // letters, digits, '_', '-' and '>' only.
  lex.peek();
  size_t end = lex.offset();
  const std::string_view text = lex.text();
  while (end < text.size() && (is_name_char(text[end]) || text[end] == '>')) {
    ++end;
  }
  const std::string_view value = text.substr(at, end - at);
  lex.seek(static_cast<uint32_t>(end));
  const size_t underscore = value.find('_');
  const size_t arrow = value.find("->");
  ConvDimLabels labels;
  if (underscore == std::string_view::npos || arrow == std::string_view::npos ||
      arrow < underscore ||
      !decode_labels(value.substr(0, underscore), 'b', 'f', labels.input_batch,
                     labels.input_feature, labels.input_spatial) ||
      !decode_labels(value.substr(underscore + 1, arrow - underscore - 1), 'i', 'o',
                     labels.kernel_input_feature, labels.kernel_output_feature,
                     labels.kernel_spatial) ||
      !decode_labels(value.substr(arrow + 2), 'b', 'f', labels.output_batch, labels.output_feature,
                     labels.output_spatial) ||
      labels.input_spatial.size() != labels.kernel_spatial.size() ||
      labels.input_spatial.size() != labels.output_spatial.size()) {
    lex.fail_at(at, "bad dim_labels '" + std::string(value) +
                        "': expected INPUT_KERNEL->OUTPUT such as b01f_01io->b01f");
  }
  return labels;
}

namespace {

void check_id_count(Lexer& lex, int64_t count) {
  if (count > kMaxGroupIds) {
    lex.fail("replica_groups name more than " + std::to_string(kMaxGroupIds) + " ids");
  }
}

std::vector<int64_t> parse_dims_in(Lexer& lex, char open, char close, std::string_view what) {
  std::vector<int64_t> out;
  lex.expect(open, "to open " + std::string(what));
  do {
    if (out.size() >= static_cast<size_t>(kMaxRank)) {
      lex.fail(std::string(what) + " has more than " + std::to_string(kMaxRank) + " entries");
    }
    out.push_back(lex.expect_integer("an integer in " + std::string(what)));
  } while (lex.consume(','));
  lex.expect(close, "to close " + std::string(what));
  return out;
}

}  // namespace

ReplicaGroups parse_replica_groups(Lexer& lex) {
  ReplicaGroups groups;
  if (lex.peek() == '[') {
    groups.iota = true;
    const uint32_t at = lex.offset();
    const std::vector<int64_t> gs = parse_dims_in(lex, '[', ']', "the iota group dimensions");
    if (gs.size() != 2 || gs[0] < 1 || gs[1] < 1) {
      lex.fail_at(at, "expected [GROUPS,SIZE] with both >= 1 in iota replica_groups");
    }
    groups.group_count = gs[0];
    groups.group_size = gs[1];
    if (groups.group_count > kMaxGroupIds / groups.group_size) {
      check_id_count(lex, kMaxGroupIds + 1);
    }
    if (!lex.consume("<=")) {
      lex.fail("expected '<=' after [GROUPS,SIZE] in iota replica_groups");
    }
    const uint32_t dims_at = lex.offset();
    groups.reshape_dims = parse_dims_in(lex, '[', ']', "the iota reshape dimensions");
    int64_t product = 1;
    for (const int64_t d : groups.reshape_dims) {
      if (d < 1 || product > kMaxGroupIds / d) {
        lex.fail_at(dims_at, "iota reshape dimensions must be >= 1 and multiply to GROUPS*SIZE");
      }
      product *= d;
    }
    if (product != groups.group_count * groups.group_size) {
      lex.fail_at(dims_at, "iota reshape dimensions multiply to " + std::to_string(product) +
                               ", not GROUPS*SIZE = " +
                               std::to_string(groups.group_count * groups.group_size));
    }
    if (lex.peek_raw() == 'T') {
      lex.seek(lex.offset() + 1);
      const uint32_t perm_at = lex.offset();
      groups.transpose_perm = parse_dims_in(lex, '(', ')', "the iota transpose");
      std::vector<bool> seen(groups.reshape_dims.size(), false);
      bool ok = groups.transpose_perm.size() == groups.reshape_dims.size();
      for (const int64_t p : groups.transpose_perm) {
        ok = ok && p >= 0 && p < static_cast<int64_t>(seen.size()) && !seen[static_cast<size_t>(p)];
        if (ok) {
          seen[static_cast<size_t>(p)] = true;
        }
      }
      if (!ok) {
        lex.fail_at(perm_at, "iota transpose must be a permutation of the reshape dimensions");
      }
    }
    return groups;
  }
  lex.expect('{', "to open replica_groups ('{' or '[')");
  if (lex.consume('}')) {
    return groups;
  }
  int64_t ids = 0;
  do {
    std::vector<int64_t>& g = groups.explicit_groups.emplace_back();
    lex.expect('{', "to open a replica group");
    if (!lex.consume('}')) {
      do {
        const int64_t id = lex.expect_integer("a replica id");
        if (id < 0) {
          lex.fail("replica ids must be >= 0");
        }
        check_id_count(lex, ++ids);
        g.push_back(id);
      } while (lex.consume(','));
      lex.expect('}', "to close a replica group");
    }
  } while (lex.consume(','));
  lex.expect('}', "to close replica_groups");
  return groups;
}

std::vector<std::pair<int64_t, int64_t>> parse_source_target_pairs(Lexer& lex) {
  std::vector<std::pair<int64_t, int64_t>> pairs;
  lex.expect('{', "to open source_target_pairs");
  if (lex.consume('}')) {
    return pairs;
  }
  do {
    lex.expect('{', "to open a source-target pair");
    const int64_t source = lex.expect_integer("a source id");
    lex.expect(',', "between source and target");
    const int64_t target = lex.expect_integer("a target id");
    lex.expect('}', "to close a source-target pair");
    if (source < 0 || target < 0) {
      lex.fail("source and target ids must be >= 0");
    }
    pairs.emplace_back(source, target);
    check_id_count(lex, static_cast<int64_t>(pairs.size()));
  } while (lex.consume(','));
  lex.expect('}', "to close source_target_pairs");
  return pairs;
}

std::vector<SliceDim> parse_slice(Lexer& lex) {
  std::vector<SliceDim> dims;
  lex.expect('{', "to open slice");
  if (lex.consume('}')) {
    return dims;
  }
  do {
    SliceDim d;
    lex.expect('[', "to open a slice dimension");
    d.start = lex.expect_integer("a slice start");
    lex.expect(':', "after the slice start");
    d.limit = lex.expect_integer("a slice limit");
    if (lex.consume(':')) {
      d.stride = lex.expect_integer("a slice stride");
    }
    lex.expect(']', "to close a slice dimension");
    dims.push_back(d);
  } while (lex.consume(','));
  lex.expect('}', "to close slice");
  return dims;
}

Literal parse_literal(std::string_view text) {
  Literal lit;
  size_t b = 0;
  size_t e = text.size();
  while (b < e && (text[b] == ' ' || text[b] == '\n' || text[b] == '\t' || text[b] == '\r')) {
    ++b;
  }
  while (e > b && (text[e - 1] == ' ' || text[e - 1] == '\n' || text[e - 1] == '\t' ||
                   text[e - 1] == '\r')) {
    --e;
  }
  lit.text = text.substr(b, e - b);
  const std::string_view t = lit.text;
  if (t == "true" || t == "false") {
    lit.is_scalar = lit.is_integer = true;
    lit.integer = t == "true" ? 1 : 0;
    lit.real = static_cast<double>(lit.integer);
  } else if (t == "inf" || t == "+inf" || t == "-inf" || t == "nan" || t == "-nan") {
    lit.is_scalar = true;
    lit.real = t == "nan" || t == "-nan" ? std::numeric_limits<double>::quiet_NaN()
               : t[0] == '-'             ? -std::numeric_limits<double>::infinity()
                                         : std::numeric_limits<double>::infinity();
  } else if (to_int(t, lit.integer)) {
    lit.is_scalar = lit.is_integer = true;
    lit.real = static_cast<double>(lit.integer);
  } else if (!t.empty()) {
    double v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec == std::errc() && end == t.data() + t.size()) {
      lit.is_scalar = true;
      lit.real = v;
    }
  }
  return lit;
}

}  // namespace podsim::hlo::internal
