// Serve files whose arrivals are a trace, together with the trace: the serve
// loader reading the CSV through the file the serve text names, then, when
// the run is small, the request-level simulation and every output.
//
// Input format: the serve file (Protobuf text, podsim.ServeConfig), then the
// separator line kSeparator ("#--- trace.csv ---", a comment to the text
// parser), then the trace CSV's bytes as they are (NUL bytes included):
//
//   replicas { ... } arrivals { trace { file: "azure-conv-300.csv" } }
//   #--- trace.csv ---
//   TIMESTAMP,ContextTokens,GeneratedTokens
//   2023-11-16 18:15:46.6805900,374,44
//
// An input without the separator is all serve text and an empty CSV. The
// harness writes the CSV to a file private to the process ($TMPDIR or /tmp,
// the pid in its name, rewritten every iteration) and, when the serve text
// has `arrivals { trace { ... } }`, points `trace.file` at it (the text is
// parsed and printed back); the other file names resolve in workloads/serve/
// as in serve_fuzzer. The loader's InputError and a step the pod simulation
// cannot lower (fleet::StepError) are the refusals `podsim serve` turns into
// exit 2; a run past the harness's work limit (sim::WorkLimitExceeded, exit 1
// for podsim) is the harness's own bound. Anything else escapes.
//
// The custom mutator keeps the two sections apart: the serve text gets the
// structure-aware Protobuf mutation (structured_mutator.h), mostly with its
// arrivals kept or made a trace and sometimes the trace's speed-up set to a
// boundary; the CSV gets cell-level mutations (boundary numbers, empty cells,
// extra or missing columns, quotes, NUL bytes, odd timestamps, reordered or
// repeated rows, the other header) or libFuzzer's byte mutation. The cross-over
// takes the serve text of one input and the CSV of the other.
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "config/diagnostics.h"
#include "config/serve_loader.h"
#include "fleet/engine_oracle.h"
#include "fleet/serve.h"
#include "fleet/serve_output.h"
#include "fleet/serve_trace.h"
#include "fuzz_support.h"
#include "podsim/serve.pb.h"
#include "sim/work_budget.h"
#include "structured_mutator.h"

namespace {

namespace pb = google::protobuf;

constexpr std::string_view kSeparator = "\n#--- trace.csv ---\n";

// As serve_fuzzer, but with fewer requests (the trace's first ones; a
// request of a 70B model on a 4x4 slice is about a quarter second of pod
// simulations under the sanitizers): at most this many requests of at most
// this many tokens on at most this many replica copies of at most 16 chips.
constexpr uint64_t kMaxRequests = 8;
constexpr uint64_t kQuickRequests = 3;  // podsim::fuzz::quick()
constexpr uint32_t kMaxTokens = 512;
constexpr uint32_t kMaxCopies = 3;
constexpr uint32_t kMaxChips = 16;
constexpr uint32_t kMaxUsers = 8;
// Events over the run's pod simulations: far above what a small run needs.
constexpr uint64_t kMaxEvents = 20'000'000;

struct Sections {
  std::string_view serve;
  std::string_view csv;
};

Sections split(std::string_view input) {
  const size_t at = input.find(kSeparator);
  if (at == std::string_view::npos) {
    return {input, {}};
  }
  return {input.substr(0, at), input.substr(at + kSeparator.size())};
}

// The process's trace file, removed at exit.
class TraceFile {
 public:
  TraceFile() {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") +
            "/podsim-serve-trace-fuzz-" + std::to_string(::getpid()) + ".csv";
  }
  ~TraceFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }
  void write(std::string_view bytes) const {
    std::FILE* f = std::fopen(path_.c_str(), "wb");
    if (f == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() ||
        std::fclose(f) != 0) {
      std::fprintf(stderr, "fuzz harness: cannot write %s\n", path_.c_str());
      std::abort();
    }
  }

 private:
  std::string path_;
};

const TraceFile& trace_file() {
  static const TraceFile file;
  return file;
}

class Quiet : public pb::io::ErrorCollector {
  void AddError(int, pb::io::ColumnNumber, const std::string&) override {}
};

bool parse_serve(std::string_view text, podsim::ServeConfig& message) {
  pb::TextFormat::Parser parser;
  Quiet quiet;
  parser.RecordErrorsTo(&quiet);
  return parser.ParseFromString(std::string(text), &message);
}

// The serve text with its trace's file pointed at `path`; unchanged when it
// does not parse or has no trace (the loader then refuses it, or it has
// other arrivals).
std::string with_trace_file(std::string_view text, const std::string& path) {
  podsim::ServeConfig message;
  if (!parse_serve(text, message) || !message.arrivals().has_trace()) {
    return std::string(text);
  }
  message.mutable_arrivals()->mutable_trace()->set_file(path);
  std::string out;
  pb::TextFormat::PrintToString(message, &out);
  return out;
}

bool small_enough(podsim::config::ServeSpec& spec) {
  const uint64_t max_requests = podsim::fuzz::quick() ? kQuickRequests : kMaxRequests;
  using podsim::config::ArrivalKind;
  uint32_t copies = 0;
  for (const auto& r : spec.replicas) {
    uint64_t chips = 1;
    for (const auto& d : r.pod.torus.dims) {
      chips *= d.size;
    }
    copies += r.count;
    if (chips * std::max<uint32_t>(1, r.pod.slices) > kMaxChips || r.max_batch > 64) {
      return false;
    }
  }
  if (copies > kMaxCopies) {
    return false;
  }
  auto& a = spec.arrivals;
  if (a.kind == ArrivalKind::kTrace) {
    if (a.trace.size() > max_requests) {
      a.trace.resize(max_requests);
    }
    return std::all_of(a.trace.begin(), a.trace.end(), [](const auto& t) {
      return t.prompt_tokens <= kMaxTokens && t.output_tokens <= kMaxTokens;
    });
  }
  if (a.kind == ArrivalKind::kClosedLoop && a.users > kMaxUsers) {
    return false;
  }
  spec.max_requests = std::min(spec.max_requests, max_requests);
  return a.prompt.max <= kMaxTokens && a.output.max <= kMaxTokens;
}

// What a loaded trace promises (config/trace_loader.h): sorted, the first at
// 0, token counts in range.
void check_trace(const podsim::config::ArrivalSpec& a) {
  if (a.kind != podsim::config::ArrivalKind::kTrace) {
    return;
  }
  const auto& t = a.trace;
  for (size_t i = 0; i < t.size(); ++i) {
    if ((i == 0 && t[i].arrival != podsim::sim::Time::ps(0)) ||
        (i > 0 && t[i].arrival < t[i - 1].arrival) || t[i].prompt_tokens == 0 ||
        t[i].output_tokens == 0 || t[i].prompt_tokens > podsim::config::kMaxRequestTokens ||
        t[i].output_tokens > podsim::config::kMaxRequestTokens) {
      std::fprintf(stderr, "fuzz harness: trace row %zu out of order or range\n", i);
      std::abort();
    }
  }
}

// ---- mutation ----

using Rng = std::mt19937_64;

std::string join(std::string_view serve, std::string_view csv) {
  std::string out(serve);
  out += kSeparator;
  out += csv;
  return out;
}

size_t store(const std::string& out, uint8_t* data, size_t max_size) {
  if (out.size() > max_size) {
    return 0;
  }
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

std::string byte_mutate(std::string_view s, size_t max_size) {
  if (s.size() > max_size) {
    return std::string(s);
  }
  std::string buf(s);
  buf.resize(std::max<size_t>(max_size, 1));
  const size_t n = LLVMFuzzerMutate(reinterpret_cast<uint8_t*>(buf.data()), s.size(), buf.size());
  buf.resize(n);
  return buf;
}

// The serve section mutated as a podsim.ServeConfig; mostly its arrivals made
// (or kept) a trace, sometimes the speed-up at a boundary.
std::string mutate_serve(Rng& rng, std::string_view serve, size_t max_size) {
  if (serve.size() > max_size) {
    return std::string(serve);
  }
  std::string buf(serve);
  buf.resize(std::max<size_t>(max_size, 1));
  const size_t n = podsim::fuzz::mutate_text_proto(
      podsim::ServeConfig::default_instance(), reinterpret_cast<uint8_t*>(buf.data()), serve.size(),
      buf.size(), static_cast<unsigned>(rng()));
  buf.resize(n);
  podsim::ServeConfig message;
  if (rng() % 4 == 0 || !parse_serve(buf, message)) {
    return buf;
  }
  bool changed = false;
  if (!message.arrivals().has_trace()) {
    message.mutable_arrivals()->mutable_trace()->set_file("trace.csv");
    changed = true;
  }
  if (rng() % 8 == 0) {
    static constexpr double kSpeedups[] = {0,        1,   2,    3.5,    12, 1000,
                                           999999.9, 1e6, 1e-6, 1e-300, -1, 1.0000001};
    message.mutable_arrivals()->mutable_trace()->set_speedup(
        kSpeedups[rng() % std::size(kSpeedups)]);
    changed = true;
  }
  if (!changed) {
    return buf;
  }
  std::string out;
  pb::TextFormat::Printer printer;
  printer.SetSingleLineMode(rng() % 2 == 0);
  if (!printer.PrintToString(message, &out) || out.size() > max_size) {
    return buf;
  }
  return out;
}

std::vector<std::string> lines_of(std::string_view csv) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos <= csv.size()) {
    const size_t nl = csv.find('\n', pos);
    if (nl == std::string_view::npos) {
      lines.emplace_back(csv.substr(pos));
      break;
    }
    lines.emplace_back(csv.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return lines;
}

std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> cells;
  size_t pos = 0;
  while (true) {
    const size_t comma = line.find(',', pos);
    if (comma == std::string::npos) {
      cells.push_back(line.substr(pos));
      return cells;
    }
    cells.push_back(line.substr(pos, comma - pos));
    pos = comma + 1;
  }
}

std::string joined(const std::vector<std::string>& parts, char sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) {
      out += sep;
    }
    out += parts[i];
  }
  return out;
}

const char* const kCells[] = {"0",
                              "-1",
                              "1",
                              "1e-300",
                              "1e300",
                              "NaN",
                              "nan",
                              "inf",
                              "-inf",
                              "18446744073709551616",
                              "18446744073709551615",
                              "9223372036854775807",
                              "9223372036854775808",
                              "-9223372036854775808",
                              "4294967295",
                              "4294967296",
                              "1048576",
                              "1048577",
                              "2592000",
                              "2592001",
                              "2592000.999999999999",
                              "9999999999",
                              "99999999999",
                              "0.000000000001",
                              "0.0000000000001",
                              "1.",
                              ".5",
                              "+1",
                              " 1",
                              "1 ",
                              "0x10",
                              "1e3",
                              "\"1\"",
                              "\"",
                              "",
                              "2023-11-16 18:15:46.6805900",
                              "2023-11-16 18:15:46",
                              "2023-11-16 18:15:46.",
                              "2023-11-16 18:15:46.12345678",
                              "0000-01-01 00:00:00.0000000",
                              "9999-12-31 23:59:59.9999999",
                              "2024-02-29 00:00:00",
                              "2023-02-29 00:00:00",
                              "2023-13-01 00:00:00",
                              "2023-11-16 24:00:00",
                              "2023-11-16 23:60:00",
                              "2023-11-16 23:59:60",
                              "1970-01-01 00:00:00",
                              "-001-01-01 00:00:00"};

// One CSV-aware change, or libFuzzer's byte mutation.
std::string mutate_csv(Rng& rng, std::string_view csv, size_t max_size) {
  std::vector<std::string> lines = lines_of(csv);
  const size_t row = lines.empty() ? 0 : rng() % lines.size();
  const size_t body = lines.size() > 1 ? 1 + rng() % (lines.size() - 1) : row;
  switch (rng() % 12) {
    case 0:
    case 1:
    case 2: {  // a cell set to a boundary value
      if (lines.empty()) {
        break;
      }
      auto cells = cells_of(lines[body]);
      cells[rng() % cells.size()] = kCells[rng() % std::size(kCells)];
      lines[body] = joined(cells, ',');
      break;
    }
    case 3: {  // an extra or a missing column
      if (lines.empty()) {
        break;
      }
      auto cells = cells_of(lines[row]);
      if (rng() % 2 == 0 || cells.size() == 1) {
        cells.insert(cells.begin() + static_cast<std::ptrdiff_t>(rng() % (cells.size() + 1)),
                     kCells[rng() % std::size(kCells)]);
      } else {
        cells.erase(cells.begin() + static_cast<std::ptrdiff_t>(rng() % cells.size()));
      }
      lines[row] = joined(cells, ',');
      break;
    }
    case 4: {  // a quote, a NUL byte, a CR or a BOM inserted
      if (lines.empty()) {
        break;
      }
      static constexpr std::string_view kBytes[] = {
          "\"", std::string_view("\0", 1), "\r", "\xEF\xBB\xBF", ",", " "};
      std::string& l = lines[row];
      l.insert(rng() % (l.size() + 1), kBytes[rng() % std::size(kBytes)]);
      break;
    }
    case 5: {  // two rows swapped: unsorted times
      if (lines.size() > 2) {
        std::swap(lines[body], lines[1 + rng() % (lines.size() - 1)]);
      }
      break;
    }
    case 6: {  // a row repeated (equal times), up to 8 times
      if (lines.size() > 1) {
        const std::string copy = lines[body];
        const size_t times = 1 + rng() % 8;
        lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(body), times, copy);
      }
      break;
    }
    case 7: {  // a row removed
      if (!lines.empty()) {
        lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(row));
      }
      break;
    }
    case 8: {  // the other header (the rows keep their format), or a near miss
      static constexpr const char* kHeaders[] = {
          "TIMESTAMP,ContextTokens,GeneratedTokens",     "arrival_s,prompt_tokens,output_tokens",
          "\xEF\xBB\xBF,prompt_tokens,output_tokens",    "TIMESTAMP,ContextTokens",
          "arrival_s,prompt_tokens,output_tokens,extra", ""};
      std::string h = kHeaders[rng() % std::size(kHeaders)];
      if (h.starts_with("\xEF")) {  // a byte-order mark before the plain header
        h.insert(3, "arrival_s");
      }
      if (lines.empty()) {
        lines.push_back(h);
      } else {
        lines[0] = h;
      }
      break;
    }
    case 9: {  // a row with a time far from the others
      static constexpr const char* kRows[] = {"9999-12-31 23:59:59.9999999,1,1",
                                              "0000-01-01 00:00:00,1,1",
                                              "2024-11-16 18:15:46.6805900,10,10",
                                              "1970-01-01 00:00:00,1,1",
                                              "2592000,1,1",
                                              "9999999999.999999999999,1,1",
                                              "0,1,1",
                                              "0.000000000001,1048576,1048576"};
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(lines.empty() ? 0 : body),
                   kRows[rng() % std::size(kRows)]);
      break;
    }
    case 10: {  // Windows line ends
      for (auto& l : lines) {
        l += '\r';
      }
      break;
    }
    default:
      return byte_mutate(csv, max_size);
  }
  std::string out = joined(lines, '\n');
  if (out.size() > max_size) {
    return byte_mutate(csv, max_size);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Sections in = split(podsim::fuzz::as_text(data, size));
  const TraceFile& file = trace_file();
  file.write(in.csv);
  podsim::config::ServeSpec spec;
  try {
    spec = podsim::config::parse_serve_text(with_trace_file(in.serve, file.path()), "fuzz.serve",
                                            podsim::fuzz::source_path("workloads/serve"));
  } catch (const podsim::config::InputError&) {
    return 0;
  }
  check_trace(spec.arrivals);
  if (!small_enough(spec)) {
    return 0;
  }
  spec.buckets.measure_error = false;  // half the pod runs; measured in tests/fleet
  podsim::fleet::ServeOutput out;
  try {
    out = podsim::fleet::serve(spec, /*record_steps=*/true,
                               podsim::sim::WorkLimits{.max_events = kMaxEvents});
  } catch (const podsim::fleet::StepError&) {
    return 0;
  } catch (const podsim::sim::WorkLimitExceeded&) {
    return 0;
  }
  const auto report = podsim::fleet::make_report(spec, out);
  std::ostringstream table;
  podsim::fleet::render_summary(table, report);
  (void)podsim::fleet::summary_json(report);
  (void)podsim::fleet::summary_csv(report);
  (void)podsim::fleet::timeseries_csv(out);
  size_t request_bytes = 0;
  podsim::fleet::write_requests_csv(out,
                                    [&](std::string_view piece) { request_bytes += piece.size(); });
  (void)request_bytes;
  std::ostringstream trace;
  podsim::fleet::write_serve_trace(spec, out, trace);
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  Rng rng(seed);
  const std::string input(reinterpret_cast<const char*>(data), size);
  const Sections in = split(input);
  const size_t room = max_size > kSeparator.size() ? max_size - kSeparator.size() : 0;
  std::string out;
  if (rng() % 2 == 0) {
    const size_t limit = room > in.csv.size() ? room - in.csv.size() : 0;
    out = join(mutate_serve(rng, in.serve, limit), in.csv);
  } else {
    const size_t limit = room > in.serve.size() ? room - in.serve.size() : 0;
    out = join(in.serve, mutate_csv(rng, in.csv, limit));
  }
  const size_t n = store(out, data, max_size);
  return n > 0 ? n : LLVMFuzzerMutate(data, size, max_size);
}

// The serve text of one input with the CSV of the other.
extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* data1, size_t size1,
                                            const uint8_t* data2, size_t size2, uint8_t* out,
                                            size_t max_out_size, unsigned int seed) {
  const Sections a = split(podsim::fuzz::as_text(data1, size1));
  const Sections b = split(podsim::fuzz::as_text(data2, size2));
  const std::string joined_input = seed % 2 == 0 ? join(a.serve, b.csv) : join(b.serve, a.csv);
  return store(joined_input, out, max_out_size);
}
