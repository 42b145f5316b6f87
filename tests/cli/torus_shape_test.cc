// "3D torus or 2D?": the shipped LLaMA-3-70B decode step (16-way tensor
// parallelism, its sharding unchanged) on 256 v5e chips laid out as 16x16,
// 16x4x4 and 4x4x16, the model axis on 16 chips of each. On 16x16 (and on
// 16x4x4 with the model on x) the tensor-parallel all-reduces run over a
// 16-chip ring; with the model axis over the two 4-chip dimensions of a 3D
// slice they run one ring per dimension, on four ports instead of two, and
// their latency-bound 512 KiB all-reduces take 8 hop-steps instead of 16.
// The 3D what-if chip is the v5e with six ICI ports.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"

namespace podsim::cli::testing {
namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class TempDir {
 public:
  TempDir() : dir_(std::filesystem::temp_directory_path() / "podsim-torus-shape-test") {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~TempDir() { std::filesystem::remove_all(dir_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }

 private:
  std::filesystem::path dir_;
};

// The shipped v5e 16x16 file with its torus replaced by `dims` (all wrapped,
// 50 GB/s and 1 us per hop as shipped) and, for 3D, six ports.
std::string topology(const std::vector<std::pair<std::string, int>>& dims) {
  std::string text = slurp(root() / "topologies/v5e-16x16.textproto");
  text = std::regex_replace(text, std::regex("  dims \\{ name: \"[xy]\"[^\n]*\n"), "");
  std::string lines;
  for (const auto& [name, size] : dims) {
    lines += "  dims { name: \"" + name + "\" size: " + std::to_string(size) +
             " wraparound: true link_bandwidth_gbps: 50 hop_latency_ns: 1000 }\n";
  }
  text = std::regex_replace(text, std::regex("torus \\{\n"), "torus {\n" + lines);
  if (dims.size() == 3) {
    text = std::regex_replace(text, std::regex("ici_ports: 4"), "ici_ports: 6");
  }
  return text;
}

// The shipped workload with its mesh laid over other dimensions.
std::string workload(const std::string& model, const std::string& data) {
  const std::string text = slurp(root() / "workloads/llama3-70b-decode-v5e.textproto");
  const std::string mesh = "mesh {\n  axes { name: \"model\" dims: [" + model +
                           "] }\n  axes { name: \"data\" dims: [" + data + "] }\n}\n";
  // The mesh block runs from "mesh {" to the first "}" that opens a line.
  const size_t begin = text.find("\nmesh {") + 1;
  const size_t end = text.find("\n}\n", begin) + 3;
  return text.substr(0, begin) + mesh + text.substr(end);
}

// One CSV record's cells (RFC 4180 quotes: the mesh cell holds commas).
std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (const char ch : line) {
    if (ch == '"') {
      quoted = !quoted;
    } else if (ch == ',' && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += ch;
    }
  }
  return cells;
}

// The serving CSV row, by column name.
std::map<std::string, std::string> step(const std::string& topology_file,
                                        const std::string& workload_file) {
  const Result r = run({"run", "-q", "-t", topology_file, "-w", workload_file, "-f", "csv"});
  EXPECT_EQ(r.code, 0) << r.err;
  std::istringstream in(r.out);
  std::string header;
  std::string row;
  std::getline(in, header);
  std::getline(in, row);
  const auto names = cells_of(header);
  const auto values = cells_of(row);
  EXPECT_EQ(names.size(), values.size()) << row;
  std::map<std::string, std::string> cells;
  for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
    cells[names[i]] = values[i];
  }
  return cells;
}

double us(const std::map<std::string, std::string>& row, const std::string& column) {
  return std::stod(row.at(column));
}

TEST(TorusShape, ThreeDimensionsSpeedUpTensorParallelDecode) {
  const TempDir dir;
  const std::string flat = dir.write("16x16.textproto", topology({{"x", 16}, {"y", 16}}));
  const std::string tall = dir.write("16x4x4.textproto", topology({{"x", 16}, {"y", 4}, {"z", 4}}));
  const std::string deep = dir.write("4x4x16.textproto", topology({{"x", 4}, {"y", 4}, {"z", 16}}));
  const auto on_16x16 = step(flat, dir.write("w1.textproto", workload("\"x\"", "\"y\"")));
  const auto on_16x4x4_ring =
      step(tall, dir.write("w2.textproto", workload("\"x\"", "\"y\", \"z\"")));
  const auto on_16x4x4 = step(tall, dir.write("w3.textproto", workload("\"y\", \"z\"", "\"x\"")));
  const auto on_4x4x16 = step(deep, dir.write("w4.textproto", workload("\"x\", \"y\"", "\"z\"")));

  // The same 16-chip ring of the same links: the same step, to the picosecond.
  EXPECT_EQ(on_16x4x4_ring.at("serving.step_time_us"), on_16x16.at("serving.step_time_us"));
  // The model axis on a 4x4 torus, whichever two dimensions: the same step.
  EXPECT_EQ(on_16x4x4.at("serving.step_time_us"), on_4x4x16.at("serving.step_time_us"));
  // Memory time is the same everywhere (same shards); only the collectives moved.
  EXPECT_EQ(on_16x4x4.at("serving.memory_us"), on_16x16.at("serving.memory_us"));

  // Each layer all-reduces 512 KiB twice (attention and FFN outputs: batch
  // 32 x 8192 x bf16) over the 16 model chips, 80 layers: 160 all-reduces.
  // Balanced rings split each chunk in two halves, so the last of a phase's
  // floor(n/2) steps carries half a chunk on each link direction. On a
  // 16-ring: 2 x (7 steps of 32 KiB + 1 of 16 KiB); on 4x4: two shares of
  // 256 KiB, 2 x (64 KiB + 32 KiB + 16 KiB + 8 KiB). Each step: bytes / 50
  // GB/s + 1 us.
  const auto step_us = [](double bytes) { return bytes / 50e9 * 1e6 + 1.0; };
  const double ring16 = 2 * (7 * step_us(32768) + step_us(16384));
  const double torus4x4 = 2 * (step_us(65536) + step_us(32768) + step_us(16384) + step_us(8192));
  const double saved = 160 * (ring16 - torus4x4);
  const double moved = us(on_16x16, "serving.collective_exposed_us") -
                       us(on_16x4x4, "serving.collective_exposed_us");
  EXPECT_NEAR(moved, saved, 0.01 * saved) << "exposed collective time saved by the 3D layout";
  EXPECT_NEAR(us(on_16x16, "serving.step_time_us") - us(on_16x4x4, "serving.step_time_us"), saved,
              0.01 * saved);
  EXPECT_LT(us(on_16x4x4, "serving.step_time_us"), 0.95 * us(on_16x16, "serving.step_time_us"));
}

}  // namespace
}  // namespace podsim::cli::testing
