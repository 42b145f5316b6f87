// A pod's links as a Boost.Graph adjacency_list, for graph searches over it
// (topo/ici_bfs.cc). Kept out of topo/pod.h, which nearly every file of the
// project includes: <boost/graph/adjacency_list.hpp> costs about 2 s of
// compiling per translation unit, and only the searches need it.
#pragma once

#include <boost/graph/adjacency_list.hpp>

#include "topo/link.h"

namespace podsim::topo {

struct LinkEdge {
  LinkId link = 0;
};

// Vertices are VertexIds; each edge carries the LinkId of its Link. Edges
// are added in LinkId order, so searches break ties the same way on every
// run. A class of its own (not an alias) so topo/pod.h can declare it.
using PodGraphBase =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property, LinkEdge>;
class PodGraph : public PodGraphBase {
 public:
  using PodGraphBase::PodGraphBase;
};

}  // namespace podsim::topo
