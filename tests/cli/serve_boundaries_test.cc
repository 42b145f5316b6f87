// Every numeric field of a serve file at its boundary values (issue 27):
// `podsim serve` either runs, fails a check, or refuses the input (exit 0,
// 1 or 2), never "internal error" (exit 3). The fields are enumerated from
// the Protobuf descriptor of podsim.ServeConfig, so a field added to
// proto/podsim/serve.proto is covered the day it exists. Each value is set
// on a small base (a tiny model on v5e 2x2 replicas, a few requests) whose
// messages on the field's path are already set where a base has them:
// unified with SWAP preemption (Poisson, exponential and uniform lengths),
// disaggregated over DCN (gamma, fixed lengths) and a closed loop.
// Beside it, the reported reproducers, each refused with exit 2 naming the
// file and field.
#include <gmock/gmock.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "cli/exit_codes.h"
#include "cli_runner.h"
#include "podsim/serve.pb.h"

namespace podsim::cli {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using ::testing::HasSubstr;
using testing::Result;
using testing::root;
using testing::run;
namespace fs = std::filesystem;

class Scratch {
 public:
  // One directory per test: CTest runs this binary's tests as processes
  // side by side, and each removes its directory when done.
  Scratch()
      : dir_(fs::temp_directory_path() /
             (std::string("podsim_serve_boundaries_test_") +
              ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    fs::create_directories(dir_);
  }
  ~Scratch() { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }

 private:
  fs::path dir_;
};

// Two layers of 256: a step lowers and simulates in well under a millisecond.
const char* kTinyModel = R"pb(
  name: "tiny"
  mesh {
    axes {
      name: "model"
      dims: [ "x", "y" ]
    }
  }
  model {
    name: "tiny"
    layers: 2
    d_model: 256
    heads: 4
    kv_heads: 4
    head_dim: 64
    ffn_dim: 512
    gated_ffn: true
    vocab: 1024
    weight_dtype: BF16
    activation_dtype: BF16
    kv_dtype: BF16
  }
  scenario { phase: DECODE batch: 1 context_len: 64 }
  sharding { tensor_axes: "model" tensor_collective: TENSOR_ALL_REDUCE kv_layout: KV_BY_HEADS }
)pb";

std::string replica(const std::string& workload, const std::string& extra) {
  return "replicas { topology: \"" + (root() / "topologies/v5e-2x2.textproto").string() +
         "\" workload: \"" + workload + "\" max_batch: 4 max_tokens_per_step: 256 " + extra +
         " }\n";
}

// Few buckets, no edge runs, few requests: each run is a few dozen steps.
const char* kCommon =
    "requests: 4 duration_s: 10 seed: 1 sample_interval_s: 0.01 slo { ttft_ms: 100 tpot_ms: 10 }\n"
    "buckets { batch_steps_per_octave: 1 length_steps_per_octave: 1 measure_error: false }\n";

std::vector<ServeConfig> bases(const std::string& workload) {
  const std::vector<std::string> texts = {
      replica(workload,
              "name: \"u\" count: 1 kv_block_tokens: 16 kv_memory_fraction: 0.9 preemption: SWAP "
              "host_bandwidth_gbps: 1") +
          "arrivals { poisson { rate_per_s: 100 } prompt_tokens { exponential { mean: 32 max: 64 "
          "} } output_tokens { uniform { min: 2 max: 4 } } }\n" +
          kCommon,
      replica(workload, "name: \"p\" role: ROLE_PREFILL scheduler: CHUNKED_PREFILL") +
          replica(workload, "name: \"d\" role: ROLE_DECODE") +
          "kv_transfer { bandwidth_gbps_per_chip: 3.125 latency_us: 10 model: \"flow\" }\n"
          "arrivals { gamma { rate_per_s: 100 cv: 1 } prompt_tokens { fixed: 32 } output_tokens "
          "{ fixed: 2 } }\n" +
          kCommon,
      replica(workload, "name: \"c\"") +
          "arrivals { closed_loop { users: 2 think_time_s: 0.01 } prompt_tokens { fixed: 16 } "
          "output_tokens { fixed: 2 } }\n" +
          kCommon,
  };
  std::vector<ServeConfig> out;
  for (const std::string& t : texts) {
    ServeConfig c;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(t, &c)) << t;
    out.push_back(c);
  }
  return out;
}

// One step of a path to a numeric field: the field, and the element of a
// repeated message (-1 for a singular field).
struct Step {
  const FieldDescriptor* field;
  int index;
};
using Path = std::vector<Step>;

std::string to_string(const Path& p) {
  std::string s;
  for (const Step& st : p) {
    s += (s.empty() ? "" : ".") + st.field->name();
    if (st.index >= 0)
      s += "[" + std::to_string(st.index) + "]";
  }
  return s;
}

bool numeric(const FieldDescriptor& f) {
  switch (f.cpp_type()) {
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT:
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_INT64:
    case FieldDescriptor::CPPTYPE_UINT32:
    case FieldDescriptor::CPPTYPE_UINT64:
      return true;
    default:
      return false;
  }
}

// Every singular numeric field under `type`; repeated messages at each index
// some base has (at least 0).
void collect(const google::protobuf::Descriptor& type, Path& prefix, int repeats,
             std::vector<Path>& out) {
  for (int i = 0; i < type.field_count(); ++i) {
    const FieldDescriptor* f = type.field(i);
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      for (int k = 0; k < (f->is_repeated() ? repeats : 1); ++k) {
        prefix.push_back({f, f->is_repeated() ? k : -1});
        collect(*f->message_type(), prefix, repeats, out);
        prefix.pop_back();
      }
    } else if (numeric(*f) && !f->is_repeated()) {
      prefix.push_back({f, -1});
      out.push_back(prefix);
      prefix.pop_back();
    }
  }
}

// Whether every message on the way to the field is present in `m`.
bool has_parents(const Message& m, const Path& p) {
  const Message* at = &m;
  for (size_t i = 0; i + 1 < p.size(); ++i) {
    const Reflection& r = *at->GetReflection();
    if (p[i].index >= 0) {
      if (r.FieldSize(*at, p[i].field) <= p[i].index)
        return false;
      at = &r.GetRepeatedMessage(*at, p[i].field, p[i].index);
    } else {
      if (!r.HasField(*at, p[i].field))
        return false;
      at = &r.GetMessage(*at, p[i].field);
    }
  }
  return true;
}

// The field's holder in `m`, created along the way.
Message& holder(Message& m, const Path& p) {
  Message* at = &m;
  for (size_t i = 0; i + 1 < p.size(); ++i) {
    const Reflection& r = *at->GetReflection();
    if (p[i].index >= 0) {
      while (r.FieldSize(*at, p[i].field) <= p[i].index)
        r.AddMessage(at, p[i].field);
      at = r.MutableRepeatedMessage(at, p[i].field, p[i].index);
    } else {
      at = r.MutableMessage(at, p[i].field);
    }
  }
  return *at;
}

struct Value {
  std::string label;
  double real = 0;  // for float fields
  int64_t sint = 0;
  uint64_t uint = 0;
};

std::vector<Value> values(const FieldDescriptor& f) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  switch (f.cpp_type()) {
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT: {
      std::vector<Value> v;
      // 0, the smallest positive double, tiny, the smallest bandwidths and
      // times the rules take, huge, not a number, infinite, negative.
      for (const double x : {0.0, std::numeric_limits<double>::denorm_min(), 1e-300, 1e-9, 1e-6,
                             1e-3, 1e300, std::numeric_limits<double>::quiet_NaN(), kInf, -1.0})
        v.push_back({std::to_string(x), x, 0, 0});
      return v;
    }
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_INT64:
      return {{"0", 0, 0, 0},
              {"1", 0, 1, 0},
              {"-1", 0, -1, 0},
              {"max", 0, std::numeric_limits<int64_t>::max(), 0},
              {"min", 0, std::numeric_limits<int64_t>::min(), 0}};
    default:
      return {{"0", 0, 0, 0}, {"1", 0, 0, 1}, {"max", 0, 0, std::numeric_limits<uint64_t>::max()}};
  }
}

void set(Message& m, const FieldDescriptor& f, const Value& v) {
  const Reflection& r = *m.GetReflection();
  switch (f.cpp_type()) {
    case FieldDescriptor::CPPTYPE_DOUBLE:
      r.SetDouble(&m, &f, v.real);
      break;
    case FieldDescriptor::CPPTYPE_FLOAT:
      // Out of float's range the cast is undefined: saturate to infinity.
      r.SetFloat(
          &m, &f,
          std::abs(v.real) > std::numeric_limits<float>::max()
              ? static_cast<float>(std::copysign(std::numeric_limits<double>::infinity(), v.real))
              : static_cast<float>(v.real));
      break;
    case FieldDescriptor::CPPTYPE_INT32:
      r.SetInt32(
          &m, &f,
          static_cast<int32_t>(std::clamp<int64_t>(v.sint, std::numeric_limits<int32_t>::min(),
                                                   std::numeric_limits<int32_t>::max())));
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      r.SetInt64(&m, &f, v.sint);
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      r.SetUInt32(
          &m, &f,
          static_cast<uint32_t>(std::min<uint64_t>(v.uint, std::numeric_limits<uint32_t>::max())));
      break;
    default:
      r.SetUInt64(&m, &f, v.uint);
      break;
  }
}

TEST(ServeBoundaries, EveryNumericFieldAtItsBoundariesExitsZeroOneOrTwo) {
  const Scratch s;
  const std::vector<ServeConfig> base = bases(s.write("tiny.textproto", kTinyModel));
  // The bases run as they are.
  for (size_t b = 0; b < base.size(); ++b) {
    std::string text;
    google::protobuf::TextFormat::PrintToString(base[b], &text);
    const Result r = run({"serve", s.write("base.serve.textproto", text)});
    ASSERT_EQ(r.code, kExitOk) << "base " << b << ": " << r.err << "\n" << text;
  }
  int most = 0;
  for (const ServeConfig& b : base)
    most = std::max(most, b.replicas_size());
  std::vector<Path> paths;
  Path prefix;
  collect(*ServeConfig::descriptor(), prefix, most, paths);
  ASSERT_GT(paths.size(), 20u);  // the walk found the fields
  int cases = 0;
  for (const Path& p : paths) {
    size_t b = 0;
    while (b + 1 < base.size() && !has_parents(base[b], p))
      ++b;
    for (const Value& v : values(*p.back().field)) {
      ServeConfig c = base[b];
      set(holder(c, p), *p.back().field, v);
      std::string text;
      google::protobuf::TextFormat::PrintToString(c, &text);
      // Limits keep a value that makes a run huge (but valid) from taking
      // the suite's time: it stops with exit 1.
      const Result r = run({"serve", s.write("case.serve.textproto", text), "--max-wall-seconds",
                            "5", "--max-events", "2e6"});
      ++cases;
      EXPECT_TRUE(r.code == kExitOk || r.code == kExitCheckFailed || r.code == kExitBadInput)
          << to_string(p) << " = " << v.label << " (base " << b << "): exit " << r.code << "\n"
          << r.err;
    }
  }
  EXPECT_GT(cases, 100);
}

// The reproducers reported in issue 27, each now refused with exit 2.
TEST(ServeBoundaries, TheReportedValuesAreRefusedNamingFileAndField) {
  const Scratch s;
  const std::vector<ServeConfig> base = bases(s.write("tiny.textproto", kTinyModel));
  ServeConfig disagg = base[1];
  for (const double gbps : {1e-300, 1e-9}) {
    disagg.mutable_kv_transfer()->set_bandwidth_gbps_per_chip(gbps);
    std::string text;
    google::protobuf::TextFormat::PrintToString(disagg, &text);
    const Result r = run({"serve", s.write("kv.serve.textproto", text)});
    EXPECT_EQ(r.code, kExitBadInput) << gbps << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("kv.serve.textproto"));
    EXPECT_THAT(r.err, HasSubstr("kv_transfer.bandwidth_gbps_per_chip: must be >= 0.001 GB/s"));
  }
  ServeConfig swap = base[0];
  swap.mutable_replicas(0)->set_host_bandwidth_gbps(1e-9);
  std::string text;
  google::protobuf::TextFormat::PrintToString(swap, &text);
  const Result r = run({"serve", s.write("swap.serve.textproto", text)});
  EXPECT_EQ(r.code, kExitBadInput) << r.err;
  EXPECT_THAT(r.err, HasSubstr("replicas[0].host_bandwidth_gbps: must be >= 0.001 GB/s"));
}

TEST(ServeBoundaries, AReplicaThatOutlastsTheClockIsRefusedAsRunRefusesIt) {
  // LLaMA-3-8B at 1 MB/s of HBM: ~4000 s a decode step, so 7000-token
  // outputs need more than 2^63 ps. `podsim run` refuses that with exit 2;
  // serve and capacity now say the same (they said "internal error").
  const Scratch s;
  std::ifstream in(root() / "topologies/v5e-2x2.textproto");
  std::stringstream topo;
  topo << in.rdbuf();
  std::string slow = topo.str();
  slow.replace(slow.find("hbm_bandwidth_gbps: 819"), 23, "hbm_bandwidth_gbps: 0.001");
  const std::string file = s.write(
      "slow.serve.textproto",
      "replicas { topology: \"" + s.write("slow.textproto", slow) + "\" workload: \"" +
          (root() / "workloads/serve/llama3-8b-v5e-2x2.textproto").string() +
          "\" max_batch: 4 max_tokens_per_step: 256 }\n"
          "arrivals { poisson { rate_per_s: 1 } prompt_tokens { fixed: 16 } output_tokens { "
          "fixed: 7000 } }\nrequests: 1 seed: 1 slo { ttft_ms: 1000 }\n"
          "buckets { batch_steps_per_octave: 1 length_steps_per_octave: 1 measure_error: false "
          "}\n");
  // capacity with a TTFT objective the prefill alone leaves room for (a
  // million seconds), so that it searches and its first run meets the clock.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"serve", file},
        std::vector<std::string>{"capacity", file, "--ttft-ms", "1e9"}}) {
    const Result r = run(args);
    EXPECT_EQ(r.code, kExitBadInput) << args[0] << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("slow.serve.textproto: replicas:"));
    EXPECT_THAT(r.err, HasSubstr("needs more simulated time than podsim's clock holds"));
  }
  // With the file's 1 s objective no rate can meet it: a 16-token prefill
  // alone takes hours at 1 MB/s (fleet/capacity_bound.h), so it says so
  // without a run.
  const Result r = run({"capacity", file});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("unattainable: every request (its fixed prompt of 16 tokens) "
                               "needs at least"));
}

}  // namespace
}  // namespace podsim::cli
