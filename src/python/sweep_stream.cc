#include "python/sweep_stream.h"

#include <memory>
#include <stdexcept>

#include "config/calibration_loader.h"
#include "config/diagnostics.h"
#include "config/overrides.h"
#include "config/pricing_loader.h"
#include "config/sweep_loader.h"
#include "report/result_print.h"
#include "sweep/points.h"
#include "sweep/transport.h"

namespace podsim::python {
namespace {

// Thrown into the runner when the stream is destroyed early: ends its points.
struct Stopped : std::runtime_error {
  Stopped() : std::runtime_error("the sweep was stopped") {}
};

config::SweepSpec loaded(const SweepRequest& request) {
  if (request.jobs < 1 || request.jobs > 1024)
    throw UsageError("jobs must be between 1 and 1024, got " + std::to_string(request.jobs));
  config::SweepSpec spec = config::load_sweep_file(request.sweep_file);
  // Checked as --set is, then appended to every point's as the CLI does.
  for (const config::Override& o : config::parse_overrides(request.set))
    spec.set.push_back(config::to_string(o));
  return spec;
}

}  // namespace

SweepStream::SweepStream(const SweepRequest& request)
    : spec_(loaded(request)), budget_(request.limits), jobs_(request.jobs) {
  if (request.calibration_file)
    options_.calibration = config::load_calibration_file(*request.calibration_file);
  if (request.pricing_file)
    options_.pricing = std::make_shared<const config::PricingSpec>(
        config::load_pricing_file(*request.pricing_file));
  options_.allow_oom = spec_.allow_oom;
  options_.generation.every_step = spec_.every_step;
  options_.generation.tolerance = spec_.step_tolerance;
  options_.limits = request.limits;
  producer_ = std::thread([this] { produce(); });
}

SweepStream::~SweepStream() {
  {
    const std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  has_room_.notify_all();
  producer_.join();
}

void SweepStream::produce() {
  sweep::LocalTransport transport;
  auto work = [this](uint64_t i) {
    {
      const std::lock_guard<std::mutex> lock(mu_);
      if (stopping_)
        throw Stopped();
    }
    const sweep::Point point = sweep::point_at(spec_, i);
    const podsim::Result result = budget_.run(i, [&](const sim::WorkLimits& left) {
      return sweep::run_point(point, options_, bases_, left);
    });
    return report::result_to_binpb(result);
  };
  auto sink = [this](uint64_t, const std::string& bytes) {
    std::unique_lock<std::mutex> lock(mu_);
    has_room_.wait(lock, [this] { return stopping_ || waiting_.size() < kWaiting; });
    if (stopping_)
      throw Stopped();
    waiting_.push_back(bytes);
    ready_.notify_one();
  };
  std::exception_ptr error;
  try {
    sweep::run_points(spec_.points, transport, jobs_, work, sink);
  } catch (...) {
    error = std::current_exception();
  }
  const std::lock_guard<std::mutex> lock(mu_);
  done_ = true;
  error_ = error;
  ready_.notify_one();
}

bool SweepStream::wait_for(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return ready_.wait_for(lock, timeout, [this] { return !waiting_.empty() || done_; });
}

std::optional<std::string> SweepStream::next() {
  std::unique_lock<std::mutex> lock(mu_);
  ready_.wait(lock, [this] { return !waiting_.empty() || done_; });
  if (!waiting_.empty()) {
    std::string bytes = std::move(waiting_.front());
    waiting_.pop_front();
    has_room_.notify_one();
    ++taken_;
    podsim::Result r;
    r.ParseFromString(bytes);
    if (r.status() == podsim::Result::invalid && invalid_++ == 0)
      first_invalid_ = r.reason();
    return bytes;
  }
  if (error_) {
    const std::exception_ptr error = error_;
    error_ = nullptr;  // reported once; the stream then ends
    std::rethrow_exception(error);
  }
  if (taken_ == spec_.points && invalid_ == spec_.points && invalid_ > 0) {
    invalid_ = 0;  // reported once
    throw config::InputError(config::Diagnostic{
        spec_.source_file, "", 0, 0, "every point is invalid; the first: " + first_invalid_});
  }
  return std::nullopt;
}

}  // namespace podsim::python
