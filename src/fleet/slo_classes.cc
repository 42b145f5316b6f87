#include "fleet/slo_classes.h"

#include <cmath>

#include "fleet/rng.h"

namespace podsim::fleet {
namespace {

class ClassDrawing final : public ArrivalProcess {
 public:
  ClassDrawing(std::unique_ptr<ArrivalProcess> inner, std::vector<double> cumulative, uint64_t seed)
      : inner_(std::move(inner)), cumulative_(std::move(cumulative)), rng_(seed) {}

  std::optional<Arrival> next() override { return drawn(inner_->next()); }
  std::optional<Arrival> finished(sim::Time t) override { return drawn(inner_->finished(t)); }

 private:
  std::optional<Arrival> drawn(std::optional<Arrival> a) {
    if (!a)
      return a;
    const double u = rng_.uniform();
    a->slo_class = 0;
    for (size_t i = 0; i < cumulative_.size(); ++i) {
      if (u < cumulative_[i]) {
        a->slo_class = static_cast<uint32_t>(i + 1);
        break;
      }
    }
    return a;
  }

  std::unique_ptr<ArrivalProcess> inner_;
  std::vector<double> cumulative_;  // of the classes' shares, in order
  Rng rng_;
};

}  // namespace

std::vector<config::SloSpec> slo_table(const config::SloSpec& slo,
                                       const std::vector<config::SloClassSpec>& classes) {
  std::vector<config::SloSpec> t{slo};
  for (const config::SloClassSpec& c : classes)
    t.push_back(c.slo);
  return t;
}

std::unique_ptr<ArrivalProcess> with_drawn_classes(std::unique_ptr<ArrivalProcess> process,
                                                   const std::vector<config::SloClassSpec>& classes,
                                                   uint64_t seed) {
  std::vector<double> cumulative;
  double sum = 0;
  bool any = false;
  for (const config::SloClassSpec& c : classes) {
    sum += c.share;
    any = any || c.share > 0;
    cumulative.push_back(sum);
  }
  if (!any)
    return process;
  // A stream apart from the arrival times' and the lengths'.
  return std::make_unique<ClassDrawing>(std::move(process), std::move(cumulative),
                                        seed ^ 0x2545f4914f6cdd1dull);
}

namespace {

// ms as a time, saturated at the clock's end (an objective past it is none).
sim::Time saturated_ms(double ms, sim::Time from) {
  const double ps = std::ceil(ms * 1e9);
  const double room = static_cast<double>(sim::Time::max().count_ps() - from.count_ps());
  if (!(ps < room))
    return sim::Time::max();
  return from + sim::Time::ps(static_cast<int64_t>(ps));
}

}  // namespace

RequestTargets targets_of(const config::SloSpec& slo, sim::Time arrival) {
  RequestTargets t;
  if (slo.ttft_ms > 0)
    t.ttft_deadline = saturated_ms(slo.ttft_ms, arrival);
  if (slo.tpot_ms > 0)
    t.tpot = saturated_ms(slo.tpot_ms, sim::Time());
  if (slo.tbt_ms > 0)
    t.tbt = saturated_ms(slo.tbt_ms, sim::Time());
  return t;
}

bool meets(const config::SloSpec& slo, double ttft_s, double tpot_s, sim::Time max_tbt) {
  const bool ttft_ok = slo.ttft_ms == 0 || ttft_s * 1e3 <= slo.ttft_ms;
  const bool tpot_ok = slo.tpot_ms == 0 || tpot_s * 1e3 <= slo.tpot_ms;
  const bool tbt_ok = slo.tbt_ms == 0 || max_tbt <= targets_of(slo, sim::Time()).tbt;
  return ttft_ok && tpot_ok && tbt_ok;
}

}  // namespace podsim::fleet
