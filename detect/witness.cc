#include "detect/witness.h"

namespace linfault::detect {

PrecedenceGraph precedence_graph(const history::History& history) {
  PrecedenceGraph graph(history.size());
  const auto& ops = history.operations();
  for (std::size_t a = 0; a < ops.size(); ++a) {
    if (ops[a].return_event == history::kNoEvent) continue;
    for (std::size_t b = 0; b < ops.size(); ++b) {
      if (ops[a].return_event < ops[b].call_event) boost::add_edge(a, b, graph);
    }
  }
  return graph;
}

}  // namespace linfault::detect
