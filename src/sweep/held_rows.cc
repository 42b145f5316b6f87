#include "sweep/held_rows.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace podsim::sweep {

HeldRows::HeldRows(std::ostream& out, size_t memory_bytes)
    : out_(out), memory_bytes_(memory_bytes) {}

void HeldRows::write(std::string_view text) {
  if (!holding_) {
    out_ << text;
    return;
  }
  held_bytes_ += text.size();
  if (!spill_ && memory_.size() + text.size() <= memory_bytes_) {
    memory_ += text;
    return;
  }
  if (!spill_) {
    spill_.reset(std::tmpfile());
    if (!spill_)
      throw std::runtime_error(std::string("sweep: cannot open a temporary file for held rows: ") +
                               std::strerror(errno));
  }
  if (std::fwrite(text.data(), 1, text.size(), spill_.get()) != text.size())
    throw std::runtime_error(std::string("sweep: cannot write held rows to a temporary file: ") +
                             std::strerror(errno));
}

void HeldRows::release() {
  if (!holding_)
    return;
  holding_ = false;
  out_ << memory_;
  std::string().swap(memory_);
  if (!spill_)
    return;
  // The file holds what came after the memory's rows.
  std::FILE* f = spill_.get();
  if (std::fflush(f) != 0 || std::fseek(f, 0, SEEK_SET) != 0)
    throw std::runtime_error(std::string("sweep: cannot read back held rows: ") +
                             std::strerror(errno));
  char buf[1 << 16];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
    out_.write(buf, static_cast<std::streamsize>(n));
  if (std::ferror(f) != 0)
    throw std::runtime_error("sweep: cannot read back held rows");
  spill_.reset();
}

}  // namespace podsim::sweep
