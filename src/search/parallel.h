// Work dealt to threads: fn(i) for every i in [0, n), each index exactly
// once, on `jobs` threads that take the next index as they become free.
// The caller writes fn(i)'s result into slot i of storage it sized before,
// so the outcome does not depend on the number of threads or their timing.
#pragma once

#include <cstddef>
#include <functional>

namespace podsim::search {

// jobs <= 1 runs on the calling thread. When calls throw, the remaining
// indices are skipped and the exception of the lowest index that threw is
// rethrown once every thread has stopped
// (the lowest among the indices that ran).
void for_each_index(size_t n, unsigned jobs, const std::function<void(size_t)>& fn);

}  // namespace podsim::search
