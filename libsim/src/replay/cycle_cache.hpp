#pragma once
// Private: the replay's shortcuts in one place. A cycle whose outcome cannot differ from the last
// one's is not run again; one with nothing pending only recomputes the fair share; a full cycle
// runs on the state the last one left, brought up to date, when that state can follow the changes.
// The replay loop asks what the cycle at hand does and does that; how a kind is recognised and
// which state it runs on stay in here. Debug and sanitizer builds check each cycle run on a kept
// state, and each fair-share-only cycle, against a new snapshot (a repeated outcome is not
// re-checked: nothing changed since the cycle it repeats).

#include <cstdint>
#include <optional>

#include "queue_ledger.hpp"
#include "scenario.hpp"
#include "sim/core/error.hpp"
#include "sim/fairshare/hierarchy.hpp"
#include "sim/model/cluster.hpp"
#include "sim/sched/framework/session.hpp"
#include "world.hpp"

namespace sim::replay {

class CycleCache {
 public:
  /// What a cycle does.
  enum class Kind {
    REPEAT,           ///< nothing changed since a cycle that decided nothing: its outcome repeats
    SAME_SAMPLE,      ///< nothing is pending and the fair share was sampled on the state as it is
    FAIR_SHARE_ONLY,  ///< nothing is pending: only the proportion plugin's attributes move
    FULL,             ///< the actions run: full_state(), then record() and observe(), then keep()
  };

  /// `enabled`: whether later cycles may use what a cycle leaves (off: every cycle is FULL).
  CycleCache(const Scenario& sc, bool enabled) : sc_(sc), enabled_(enabled) {}

  /// What the cycle at `now` does, the world having changed as it does before a cycle.
  Kind plan(World& world, std::int64_t now, Diagnostics& per_cycle);

  /// FAIR_SHARE_ONLY: the state the cycle samples, with ledger() beside it.
  const model::ClusterState& kept() const { return *kept_; }
  /// FAIR_SHARE_ONLY: every queue's fair share on kept().
  IdVector<QueueId, fairshare::QueueShares> fair_share(World& world, std::int64_t now);

  /// FULL: the state the cycle runs on, open sums included (usage history is the caller's).
  model::ClusterState full_state(World& world, std::int64_t now, Diagnostics& per_cycle);
  /// FULL: whether the cycle runs on the last cycle's state brought up to date by plan() (no new
  /// snapshot).
  bool updated() const { return current_; }
  /// FULL: the decisions of the session, once the world holds them.
  void record(const sched::Session& ssn);
  /// FULL: what the finished session tells the cycles after it; true when its outcome repeats
  /// until an object changes. `state` is the one the session runs on.
  bool observe(const sched::Session& ssn, model::ClusterState& state);
  /// FULL: takes back the state once the session is gone: kept for later cycles or recycled.
  void keep(model::ClusterState&& state, World& world);

  /// Every pod's part of the sums of the state the latest cycle ran on or sampled.
  const QueueLedger& ledger() const { return ledger_; }

 private:
  static constexpr std::uint64_t kNoVersion = ~std::uint64_t{0};
  const Scenario& sc_;
  bool enabled_;
  std::uint64_t repeatable_version_ = kNoVersion;  // world version after a cycle that repeats
  std::uint64_t settled_version_ = kNoVersion;     // quiet version after a calm cycle
  // While settled: the state that cycle left, which later cycles bring up to date
  // (World::update_snapshot) instead of taking a new snapshot.
  std::optional<model::ClusterState> kept_;
  bool kept_sampled_ = false;  // the latest sample is of kept_, with the pods changed since
  bool current_ = false;       // this cycle: kept_ is brought up to date
  bool beside_ = false;        // this cycle: the changed pods are read into the ledger beside kept_
  bool repeats_ = false, calm_ = false, bound_ = false;  // what the latest full cycle left
  // Every pod's part of a cycle's sums: those of the latest cycle's state after its decisions,
  // then of kept_ with the pods changed since (read beside it until the next full cycle brings
  // it up to date).
  QueueLedger ledger_;
};

}  // namespace sim::replay
