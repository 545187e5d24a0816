#include "sim/model/queue_tree.hpp"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <limits>
#include <optional>

namespace sim::model {
namespace {

// Edges run parent -> child over input positions; a queue has at most one in-edge.
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;
using Edge = boost::graph_traits<Graph>::edge_descriptor;

struct CycleFound {
  Vertex on_cycle;
};

// DFS visitor that stops at the first back edge: every back edge closes a parent cycle.
struct CycleDetector : boost::default_dfs_visitor {
  void back_edge(Edge e, const Graph& g) const { throw CycleFound{boost::target(e, g)}; }
};

// Counts the vertices a BFS reaches and marks them.
struct Marker : boost::default_bfs_visitor {
  std::vector<char>* marks;
  std::size_t* count;
  void discover_vertex(Vertex v, const Graph&) const {
    (*marks)[v] = 1;
    ++*count;
  }
};

std::string describe_cycle(std::span<const QueueLink> links, Vertex start,
                           const std::unordered_map<std::string_view, std::size_t>& index) {
  std::string text = links[start].uid;
  std::size_t at = start;
  for (std::size_t guard = 0; guard <= links.size(); ++guard) {
    at = index.at(links[at].parent);
    text += " -> " + links[at].uid;
    if (at == start) break;
  }
  return text;
}

}  // namespace

QueueTree QueueTree::build(std::span<const QueueLink> links, Diagnostics& diagnostics) {
  std::unordered_map<std::string_view, std::size_t> index;
  index.reserve(links.size());
  for (std::size_t i = 0; i < links.size(); ++i) {
    if (links[i].uid.empty()) throw InputError(links[i].where, links[i].path, "queue has no name");
    auto [it, inserted] = index.emplace(links[i].uid, i);
    if (!inserted) {
      throw InputError(links[i].where, links[i].path,
                       "duplicate queue \"" + links[i].uid + "\" (first declared at " +
                           links[it->second].path + ")");
    }
  }

  Graph graph(links.size());
  std::vector<std::size_t> orphans;
  for (std::size_t i = 0; i < links.size(); ++i) {
    if (links[i].parent.empty()) continue;
    auto parent = index.find(links[i].parent);
    if (parent == index.end()) {
      orphans.push_back(i);
    } else {
      boost::add_edge(parent->second, i, graph);
    }
  }

  try {
    boost::depth_first_search(graph, boost::visitor(CycleDetector{}));
  } catch (const CycleFound& found) {
    const QueueLink& link = links[found.on_cycle];
    throw InputError(
        link.where, link.path + ".parentQueue",
        "queue hierarchy has a cycle: " + describe_cycle(links, found.on_cycle, index));
  }

  // KAI deletes a queue whose parent is missing together with everything below it.
  std::vector<char> dropped(links.size(), 0);
  for (std::size_t orphan : orphans) {
    std::size_t count = 0;
    auto colors = std::vector<boost::default_color_type>(links.size());
    boost::breadth_first_search(graph, orphan,
                                boost::visitor(Marker{{}, &dropped, &count})
                                    .color_map(boost::make_iterator_property_map(
                                        colors.begin(), boost::get(boost::vertex_index, graph))));
    diagnostics.warn(links[orphan].where, links[orphan].path + ".parentQueue",
                     "parent queue \"" + links[orphan].parent + "\" does not exist; dropping \"" +
                         links[orphan].uid + "\"" +
                         (count > 1 ? " and the " + std::to_string(count - 1) + " queue(s) below it"
                                    : std::string()) +
                         " as KAI does");
  }

  auto by_uid = [&](std::size_t a, std::size_t b) { return links[a].uid < links[b].uid; };
  auto sorted_children = [&](std::size_t v) {
    std::vector<std::size_t> kids;
    for (auto [e, end] = boost::out_edges(v, graph); e != end; ++e)
      kids.push_back(boost::target(*e, graph));
    std::sort(kids.begin(), kids.end(), by_uid);
    return kids;
  };

  // Level order from the sorted top-level queues; QueueIds are assigned in that order.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < links.size(); ++i) {
    if (links[i].parent.empty()) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), by_uid);
  const std::size_t root_count = order.size();
  for (std::size_t head = 0; head < order.size(); ++head) {
    for (std::size_t kid : sorted_children(order[head])) {
      if (!dropped[kid]) order.push_back(kid);
    }
  }

  QueueTree tree;
  std::vector<QueueId> id_of(links.size(), QueueId::invalid());
  for (std::size_t pos = 0; pos < order.size(); ++pos) {
    id_of[order[pos]] = QueueId(static_cast<QueueId::value_type>(pos));
  }
  tree.uid_.resize(order.size());
  tree.parent_.resize(order.size());
  tree.children_.resize(order.size());
  tree.source_index_.resize(order.size());
  for (std::size_t pos = 0; pos < order.size(); ++pos) {
    const std::size_t src = order[pos];
    const QueueId id = id_of[src];
    tree.uid_[id] = links[src].uid;
    tree.source_index_[id] = src;
    tree.parent_[id] =
        links[src].parent.empty() ? QueueId::invalid() : id_of[index.at(links[src].parent)];
    if (tree.parent_[id].valid()) tree.children_[tree.parent_[id]].push_back(id);
    tree.level_order_.push_back(id);
    if (pos < root_count) tree.roots_.push_back(id);
    tree.by_uid_.emplace(links[src].uid, id);
  }
  return tree;
}

QueueId QueueTree::find(std::string_view uid) const {
  auto it = by_uid_.find(std::string(uid));
  return it == by_uid_.end() ? QueueId::invalid() : it->second;
}

}  // namespace sim::model
