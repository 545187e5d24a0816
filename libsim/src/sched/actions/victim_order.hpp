#pragma once
// The victim queue's pop order, kept across the probes of one job's solve. Every probe starts
// from the same session state (each earlier probe's statement was discarded, and discarding
// restores the state bit for bit), so a fresh victim queue would pop the same jobs in the same
// order each time: the first probe pops the shared queue and the later ones read what it popped,
// popping on only past its end. A probe that pushes a slice back (a victim job split by the
// scenario builder) changes the order for itself alone: it gets a queue of its own, popped to
// where it stands. Debug builds prove each probe's sequence against a fresh queue.

#include <memory>
#include <vector>

#include "sim/sched/actions/solver.hpp"

namespace sim::sched {

class VictimOrder {
 public:
  explicit VictimOrder(const VictimQueueFactory& make) : make_(make) {}

  /// One probe's way through the queue, from its start.
  class Cursor {
   public:
    explicit Cursor(VictimOrder& order);
    bool empty() const;
    /// The next victim, valid until the next pop.
    const JobView& pop();
    void push(JobView view);

   private:
    VictimOrder& order_;
    std::size_t next_ = 0;           ///< entries of the kept order read so far
    std::unique_ptr<JobQueue> own_;  ///< after a push: this probe's queue
    JobView own_popped_;             ///< what own_ popped last
#ifndef NDEBUG
    std::unique_ptr<JobQueue> fresh_;  ///< the queue the probe would have built, for the proof
#endif
  };

  Cursor cursor() { return Cursor(*this); }

 private:
  const VictimQueueFactory& make_;
  std::unique_ptr<JobQueue> shared_;  ///< made by the first probe
  std::vector<JobView> popped_;       ///< what the shared queue popped, in order
};

}  // namespace sim::sched
