#pragma once
// The victim search shared by reclaim, preempt and consolidation (actions/common/solvers/*,
// plugins/nodelocalgreedy, plugins/multinodegang): find the largest part of the pending job's
// gang that fits once some running pods are evicted, trying growing victim sets in victim-queue
// order, each scenario simulated inside a Statement and checked by the action's validator.

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/core/position_index.hpp"
#include "sim/sched/framework/job_queue.hpp"
#include "sim/sched/framework/scenario.hpp"
#include "sim/sched/framework/search_orders.hpp"
#include "sim/sched/framework/statement.hpp"

namespace sim::sched {

class VictimOrder;

using ScenarioValidator = std::function<bool(const Scenario&)>;
using VictimQueueFactory = std::function<std::unique_ptr<JobQueue>()>;

struct SolveResult {
  bool solved = false;
  std::unique_ptr<Statement> statement;  ///< to commit when solved
  std::vector<TaskId> victims;
};

class JobSolver {
 public:
  JobSolver(Session& ssn, std::vector<NodeId> feasible_nodes, ScenarioValidator validator,
            VictimQueueFactory victims);
  /// SolveWithResult: solved only if the whole gang is satisfied and the job gained pods.
  SolveResult solve(const JobView& job);

 private:
  struct Probe {
    bool solved = false;
    std::unique_ptr<Statement> statement;
    std::vector<TaskId> victim_tasks;
    std::vector<JobView> victim_jobs;
  };
  Probe probe(const JobView& job, const std::vector<TaskId>& to_allocate, std::size_t k,
              int generator, const std::vector<TaskId>& recorded_tasks,
              const std::vector<JobView>& recorded_jobs, VictimOrder& victims);
  Probe solve_scenario(const Scenario& scenario, std::vector<NodeId>& feasible);
  const JobView& victim_view(JobId job);
  /// `victim_jobs`: sorted, each once.
  const std::vector<const JobView*>& jobs_to_allocate(const JobView& preemptor,
                                                      const std::vector<JobId>& victim_jobs);
  /// With unique job names: the victims' jobs and the preemptor as jobs_to_allocate orders them,
  /// each with how many pending views come before it (JobQueue::push_batch's extras).
  const std::vector<std::pair<std::size_t, const JobView*>>& own_jobs(
      const JobView& preemptor, const std::vector<JobId>& victim_jobs);
  bool is_pending(JobId job) const;
  /// Takes pending_keys_[p] if not taken yet.
  void take_pending_keys(std::size_t p);

  Session& ssn_;
  std::vector<NodeId> feasible_;
  /// Full views of the jobs with a Pending pod when solve() started (every scenario starts from
  /// that state again), in name order.
  std::vector<JobView> pending_views_;
  std::vector<std::pair<JobId, std::size_t>> pending_index_;  ///< (job, its view), by job
  /// The scenario queue's sort keys of each pending view, taken the first time a scenario queues
  /// the job without placing it (its pods are then as the solve found them); by view.
  std::vector<JobQueue::JobKeys> pending_keys_;
  std::vector<char> pending_keys_taken_;
  /// Whether order_queue_ holds this solve's pending views as its batch (JobQueue::set_batch),
  /// and the job whose view it leaves out (the preemptor).
  bool batch_set_ = false;
  JobId batch_skip_;
  std::vector<std::pair<std::size_t, const JobView*>> own_jobs_;  ///< own_jobs' answer
  /// Full views of the other victim jobs jobs_to_allocate met in this solve, made once each (a
  /// view holds only the job's pod list and its shared memo, which the scenarios do not change);
  /// a deque, so the queues may borrow them.
  std::deque<JobView> victim_views_;
  PositionIndex victim_view_index_;             ///< job -> its view in victim_views_
  std::vector<JobId> order_ids_;                ///< jobs_to_allocate's scratch
  std::vector<const JobView*> order_views_;     ///< jobs_to_allocate's answer
  std::vector<char> in_feasible_;               ///< per node: in the current probe's feasible list
  std::vector<JobId> victim_jobs_;              ///< solve_scenario's scratch: its victims' jobs
  std::vector<const JobView*> relevant_views_;  ///< solve_scenario's scratch: jobs it places
  std::unique_ptr<JobQueue> order_queue_;       ///< solve_scenario's job queue, reset for each
  /// The current probe's preemptor pods when alike (alike_pending_tasks), else empty.
  std::vector<TaskId> alone_tasks_;
  /// The node orders kept while solve() runs (search_orders.hpp), else nullptr.
  SearchNodeOrders* node_orders_ = nullptr;
  ScenarioValidator validator_;
  VictimQueueFactory victims_;
};

/// MinimalJobRepresentatives (actions/common/minimal_job_comparison.go): skip jobs that are not
/// "easier" than one with the same scheduling constraints that already failed.
class FailedJobMemory {
 public:
  bool is_easier(const Session& ssn, const JobView& job) const;
  void update(const Session& ssn, const JobView& job);

 private:
  std::map<std::string, JobView> representative_;
};

}  // namespace sim::sched
