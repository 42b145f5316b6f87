// A search's evaluations dealt across the ranks of an MPI job, as a sweep's
// points are (sweep/transport.h): task k of a round's list goes to rank
// k % ranks, which evaluates its share on its threads and sends each result
// to rank 0; rank 0 merges them in order and hands the whole list back to
// every rank, since every rank needs it to decide the next round. The
// results are those of one process, so the frontier is the same bytes.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "search/evaluate.h"
#include "search/search.h"
#include "sweep/transport.h"

namespace podsim::search {

// Every rank calls it with the same arguments; every rank gets every result,
// in the order of `tasks`. `on_done(k)` is called on rank 0 as task k's
// result arrives.
std::vector<Evaluation> evaluate_across(const Problem& problem, const std::vector<Task>& tasks,
                                        unsigned jobs, sweep::Transport& transport,
                                        const std::function<void(size_t)>& on_done);

// An evaluation as bytes and back: exact (doubles bit for bit). decode()
// throws std::runtime_error on bytes encode() did not write.
std::string encode(const Evaluation& e);
Evaluation decode(const std::string& bytes);

}  // namespace podsim::search
