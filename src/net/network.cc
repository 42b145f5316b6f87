#include "net/network.h"

#include <stdexcept>

#include "net/analytical_network.h"
#include "net/flow_network.h"
#include "net/packet_network.h"

namespace podsim::net {

std::unique_ptr<Network> make_network(const topo::Pod& pod, const Options& options) {
  switch (options.model) {
    case Model::kAnalytical:
      return std::make_unique<AnalyticalNetwork>(pod, options);
    case Model::kFlow:
      return std::make_unique<FlowNetwork>(pod, options);
    case Model::kPacket:
      return std::make_unique<PacketNetwork>(pod, options);
  }
  throw std::invalid_argument("make_network: unknown network model");
}

std::string_view to_string(Model m) {
  switch (m) {
    case Model::kAnalytical:
      return "analytical";
    case Model::kFlow:
      return "flow";
    case Model::kPacket:
      return "packet";
  }
  return "unknown";
}

std::optional<Model> parse_model(std::string_view name) {
  for (const Model m : {Model::kAnalytical, Model::kFlow, Model::kPacket}) {
    if (name == to_string(m))
      return m;
  }
  return std::nullopt;
}

std::string_view to_string(Switching s) {
  switch (s) {
    case Switching::kStoreAndForward:
      return "store-and-forward";
    case Switching::kCutThrough:
      return "cut-through";
  }
  return "unknown";
}

std::optional<Switching> parse_switching(std::string_view name) {
  for (const Switching s : {Switching::kStoreAndForward, Switching::kCutThrough}) {
    if (name == to_string(s))
      return s;
  }
  return std::nullopt;
}

}  // namespace podsim::net
