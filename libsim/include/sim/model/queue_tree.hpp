#pragma once
// The queue hierarchy: validated parent links, children in canonical (UID) order, level order.

#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/strong_id.hpp"

namespace sim::model {

/// What the tree needs to know of each queue: its UID, its parent's UID ("" = top level) and
/// where it was declared (for messages). `path` names the entry, e.g. `queues[3]`.
struct QueueLink {
  std::string uid;
  std::string parent;
  SourceLocation where;
  std::string path;
};

/// Validated hierarchy over the queues that survive. Building it
/// - rejects duplicate UIDs and parent cycles (InputError naming the entry);
/// - drops every queue whose parent does not exist, with its whole subtree, and records a warning
///   (KAI does the same: pkg/scheduler/cache/cluster_info/queue.go).
/// QueueIds are dense over the kept queues; `source_index` maps back to the input position.
class QueueTree {
 public:
  static QueueTree build(std::span<const QueueLink> links, Diagnostics& diagnostics);

  std::size_t size() const { return uid_.size(); }
  const std::string& uid(QueueId q) const { return uid_[q]; }
  QueueId parent(QueueId q) const { return parent_[q]; }
  bool is_leaf(QueueId q) const { return children_[q].empty(); }
  std::size_t source_index(QueueId q) const { return source_index_[q]; }
  /// Children sorted by UID (bytewise): the fixed order that stands in for KAI's map order.
  std::span<const QueueId> children(QueueId q) const { return children_[q]; }
  /// Top-level queues sorted by UID.
  std::span<const QueueId> roots() const { return roots_; }
  /// Every queue, parents before children (breadth first from the sorted roots).
  std::span<const QueueId> level_order() const { return level_order_; }
  /// Lookup by UID; QueueId::invalid() if absent or dropped.
  QueueId find(std::string_view uid) const;

 private:
  IdVector<QueueId, std::string> uid_;
  IdVector<QueueId, QueueId> parent_;
  IdVector<QueueId, std::vector<QueueId>> children_;
  IdVector<QueueId, std::size_t> source_index_;
  std::vector<QueueId> roots_;
  std::vector<QueueId> level_order_;
  std::unordered_map<std::string, QueueId> by_uid_;
};

}  // namespace sim::model
