#include "fleet/router.h"

namespace podsim::fleet {
namespace {

class RoundRobin final : public Router {
 public:
  bool needs_load() const override { return false; }
  uint32_t route(std::span<const uint64_t> outstanding) override {
    const auto n = static_cast<uint32_t>(outstanding.size());
    const uint32_t r = next_ % n;
    next_ = r + 1;
    return r;
  }

 private:
  uint32_t next_ = 0;
};

class LeastOutstandingTokens final : public Router {
 public:
  bool needs_load() const override { return true; }
  uint32_t route(std::span<const uint64_t> outstanding) override {
    uint32_t best = 0;
    for (uint32_t i = 1; i < outstanding.size(); ++i) {
      if (outstanding[i] < outstanding[best])
        best = i;
    }
    return best;
  }
};

}  // namespace

std::unique_ptr<Router> make_router(config::RouterKind kind) {
  if (kind == config::RouterKind::kLeastOutstandingTokens)
    return std::make_unique<LeastOutstandingTokens>();
  return std::make_unique<RoundRobin>();
}

}  // namespace podsim::fleet
