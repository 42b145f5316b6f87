#include "topo/ici_bfs.h"

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>

#include "topo/pod_graph.h"

namespace podsim::topo::detail {
namespace {

// Edge filter keeping ICI links; default-constructible as filtered_graph requires.
class IciOnly {
 public:
  IciOnly() = default;
  explicit IciOnly(const Pod* pod) : pod_(pod) {}
  bool operator()(const PodGraph::edge_descriptor& e) const {
    return pod_->link(pod_->graph()[e].link).kind == LinkKind::kIci;
  }

 private:
  const Pod* pod_ = nullptr;
};

class TreeRecorder : public boost::default_bfs_visitor {
 public:
  explicit TreeRecorder(BfsTree* tree) : tree_(tree) {}
  template <typename Edge, typename Graph>
  void tree_edge(const Edge& e, const Graph& g) const {
    const auto v = boost::target(e, g);
    tree_->pred_link[v] = g[e].link;
    tree_->dist[v] = tree_->dist[boost::source(e, g)] + 1;
  }

 private:
  BfsTree* tree_;
};

}  // namespace

void ici_bfs(const Pod& pod, ChipId src, BfsTree& tree) {
  tree.pred_link.assign(pod.vertex_count(), kNoPred);
  tree.dist.assign(pod.vertex_count(), kUnreached);
  tree.dist[src] = 0;
  const boost::filtered_graph<PodGraphBase, IciOnly> ici(pod.graph(), IciOnly(&pod));
  boost::breadth_first_search(ici, src, boost::visitor(TreeRecorder(&tree)));
}

}  // namespace podsim::topo::detail
