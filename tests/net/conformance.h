// The conformance suite: one parametrized fixture whose tests run against every
// network model (and both packet switching modes). Tests live in
// conformance_test.cc (single transfers, edge cases, bookkeeping) and
// conformance_contention_test.cc (sharing, queueing, contention-free patterns,
// link utilisation, determinism); the instantiation is in conformance_test.cc.
#pragma once

#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "net/network.h"
#include "net_fixture.h"

namespace podsim::net::testing {

struct NetCase {
  std::string label;
  Options options;
};
// How gtest names a case in failure messages.
inline void PrintTo(const NetCase& c, std::ostream* os) {
  *os << c.label;
}

// Small packets, so that large transfers are many packets and the
// store-and-forward pipeline overhead, (hops - 1) packets, stays < 0.1%.
inline constexpr uint64_t kConformancePacketBytes = 4096;

class NetworkConformance : public ::testing::TestWithParam<NetCase> {
 protected:
  const Options& options() const { return GetParam().options; }
  Model model() const { return options().model; }
  // Every model contends: transfers sharing a link slow each other down. The
  // analytical one books each link first come, first served, so its times
  // are exact sums of sim::transfer_time() and the tests state them exactly;
  // flow and packet share a link fairly.
  bool books_links() const { return model() == Model::kAnalytical; }
  // How close a single transfer comes to bytes / bandwidth + hops x latency.
  double single_tolerance() const { return books_links() ? 0.0 : 1e-3; }

  // EXPECT actual == expected within a relative tolerance (exactly when 0).
  static void expect_near(sim::Time actual, sim::Time expected, double tolerance,
                          const std::string& what = "") {
    if (tolerance == 0.0) {
      EXPECT_EQ(actual, expected) << what;
    } else {
      EXPECT_LE(relative_error(actual, expected), tolerance)
          << what << ": got " << actual.to_string() << ", expected " << expected.to_string();
    }
  }
};

// bytes / bandwidth, rounded up, + hops x latency: the closed form every model
// must reproduce for a lone transfer.
inline sim::Time closed_form(uint64_t bytes, uint64_t bytes_per_s, int64_t hops,
                             sim::Time hop_latency = kHop) {
  return sim::transfer_time(bytes, sim::Bandwidth::bytes_per_s(bytes_per_s)) + hops * hop_latency;
}

}  // namespace podsim::net::testing
