// Multi-turn conversations as an arrival process (docs/serving.md, "Prefix
// caching"): new conversations arrive as a Poisson process; each picks one
// of a few shared system prompts (uniformly; their lengths drawn once per
// run) and a number of turns. Turn j is one request whose prompt is the
// system prompt, the conversation so far (every earlier turn's user message
// and answer) and a new user message, named by the prefix chain
// "system prompt k, then the conversation's own stream" so that a replica's
// prefix cache can find both. The next turn arrives an exponential think
// time (mean think_time_s) after this one arrived: open loop, so turns of
// many conversations interleave; a conversation whose prompt would pass
// kMaxRequestTokens ends there.
//
// Deterministic for a seed (fleet/rng.h): arrival and think gaps from one
// generator, lengths, turns and system prompts from another. O(log
// conversations in flight) per arrival (a heap of each live conversation's
// next turn), O(1) memory per live conversation plus one interned prefix
// chain node per conversation (fleet/prefix_chains.h).
#pragma once

#include <cstdint>
#include <memory>

#include "config/serve_spec.h"
#include "fleet/arrivals.h"

namespace podsim::fleet {

std::unique_ptr<ArrivalProcess> make_conversations(const config::ConversationSpec& spec,
                                                   uint64_t seed);

}  // namespace podsim::fleet
