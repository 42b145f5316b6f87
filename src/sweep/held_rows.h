// A sweep's rows on stdout, held back while every point so far is invalid.
//
// A sweep whose every point is invalid is bad input (exit 2, usually a
// mistyped path) and must print nothing, but rows are streamed as points
// finish. So rows wait here until a point that is ok or does not fit comes
// (from then on the exit is 0 or 1, never "bad input") and then flow
// through; if none comes, they are dropped. What waits is the invalid rows
// before the first valid point: up to kMemoryBytes in memory, beyond that in
// an anonymous temporary file (std::tmpfile: no name, gone when the process
// ends, however it ends), so memory stays bounded however long the prefix.
#pragma once

#include <cstdio>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace podsim::sweep {

class HeldRows {
 public:
  static constexpr size_t kMemoryBytes = 4 << 20;  // 4 MiB, then the temporary file

  explicit HeldRows(std::ostream& out, size_t memory_bytes = kMemoryBytes);

  // Writes `text` (one point's rows): held while holding(), else to `out`.
  void write(std::string_view text);
  // Writes what was held, then stops holding. Throws std::runtime_error
  // when the temporary file cannot be written or read back.
  void release();
  bool holding() const { return holding_; }
  // Bytes held so far (memory and file).
  uint64_t held_bytes() const { return held_bytes_; }

 private:
  struct CloseFile {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };

  std::ostream& out_;
  const size_t memory_bytes_;
  bool holding_ = true;
  std::string memory_;
  std::unique_ptr<std::FILE, CloseFile> spill_;
  uint64_t held_bytes_ = 0;
};

}  // namespace podsim::sweep
