// Costing an operation must not allocate (compute_model.h promises it; the
// engine costs millions of ops). This binary replaces the global operator
// new with one that counts calls, and checks that time() makes none.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "chip/roofline.h"
#include "chip/systolic.h"
#include "chip/table_model.h"
#include "chip_fixture.h"

namespace {
std::atomic<uint64_t> g_allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size))
    return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace podsim::chip {
namespace {

std::vector<Op> ops() {
  Attention a;
  a.batch = 4;
  a.q_len = 1;
  a.kv_len = 2048;
  a.heads = 16;
  a.kv_heads = 4;
  a.head_dim = 128;
  a.phase = AttentionPhase::kDecode;
  return {Matmul{1, 8, 8192, 8192},         Matmul{1, 64, 8192, 8192},
          Matmul{1, 1024, 1024, 1024},      a,
          Elementwise{1024, 2, 2048, 2048}, Copy{4096}};
}

uint64_t allocations_while_costing(const ComputeModel& model, const std::vector<Op>& list) {
  const uint64_t before = g_allocations.load();
  for (int rep = 0; rep < 3; ++rep) {
    for (const Op& op : list) {
      const OpTiming t = model.time(op);
      EXPECT_GT(t.time, sim::Time::zero());
    }
  }
  return g_allocations.load() - before;
}

TEST(Allocation, CostingAnOpDoesNotAllocate) {
  const std::vector<Op> list = ops();
  config::OpTableSpec table;
  config::OpTableEntry e;
  e.kind = config::OpTableKind::kMatmul;
  for (uint64_t m : {8u, 32u, 128u}) {
    e.dims = {1, m, 8192, 8192};
    e.time = sim::Time::us(100 + static_cast<int64_t>(m));
    table.entries.push_back(e);
  }
  const RooflineModel roofline(testing::v5e(), {});
  const SystolicModel systolic(testing::v5e(), {});
  const TableModel tabled(testing::v5e(), {}, table);  // exact, interpolated and fallback
  EXPECT_EQ(allocations_while_costing(roofline, list), 0u);
  EXPECT_EQ(allocations_while_costing(systolic, list), 0u);
  EXPECT_EQ(allocations_while_costing(tabled, list), 0u);
  // The counter does count: building a vector allocates.
  const uint64_t before = g_allocations.load();
  std::vector<int> v(16);
  EXPECT_GT(g_allocations.load(), before);
}

}  // namespace
}  // namespace podsim::chip
