#include "sim/fairshare/resource_division.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "sim/core/resource_vec.hpp"

namespace sim::fairshare {
namespace {

// isQueueSatisfied
bool satisfied(const ResourceShare& s) {
  if (s.request <= s.fair_share) return true;
  return s.max_allowed != kUnlimited && s.max_allowed <= s.fair_share;
}

// getRemainingRequested: requestable minus fair share, never negative.
double remaining_requested(const ResourceShare& s) {
  const double requested = s.requestable();
  if (requested < s.fair_share) return 0;
  return requested - s.fair_share;
}

// The rounding remainder a queue was left with in some round of its bucket. KAI keeps these in a
// map that a later round overwrites only when it leaves a new non-zero fraction and clears only
// when the queue is satisfied, so a stale value can survive (kai-fairshare.md 2.5).
struct Leftovers {
  std::vector<double> amount;
  std::vector<char> present;
  explicit Leftovers(std::size_t n) : amount(n, 0), present(n, 0) {}
};

// getResourceToGiveInCurrentRound
double give_in_round(double share, double requested, std::size_t member, Leftovers& left) {
  double give = 0;
  if (requested <= share) {
    give = requested;
    left.present[member] = 0;
  } else {
    // Capped by its share: whole units only ("round numbers" in KAI's words).
    const double whole = std::floor(share);
    if (whole > 0) give = whole;
    if (share - give > 0) {
      left.amount[member] = share - give;
      left.present[member] = 1;
    }
  }
  return give;
}

// divideUpToFairShare for one priority bucket; `bucket` is in canonical order.
double divide_up_to_fair_share(double remaining, double k_value,
                               std::span<const DivisionEntry> bucket, Leftovers& left) {
  std::vector<double> share_weight(bucket.size(), 0);
  for (;;) {
    bool another_round = false;
    const double to_give = remaining;  // frozen for the whole round

    // calcShareWeights: normalise weights over the unsatisfied queues (weight-0 ones add 0).
    double total_weight = 0;
    for (const DivisionEntry& q : bucket) {
      if (remaining_requested(*q.share) > 0) total_weight += q.share->over_quota_weight;
    }
    if (total_weight == 0) break;
    double weight_sum = 0;
    for (std::size_t i = 0; i < bucket.size(); ++i) {
      const ResourceShare& s = *bucket[i].share;
      if (satisfied(s)) continue;
      const double normalized = s.over_quota_weight / total_weight;
      share_weight[i] = std::max(0.0, normalized + k_value * (normalized - s.usage));
      weight_sum += share_weight[i];
    }
    if (weight_sum == 0) break;

    for (std::size_t i = 0; i < bucket.size(); ++i) {
      if (remaining == 0) break;
      ResourceShare& s = *bucket[i].share;
      if (satisfied(s)) continue;
      const double requested = remaining_requested(s);
      if (s.over_quota_weight == 0) continue;
      const double normalized = share_weight[i] / weight_sum;
      const double share = to_give * normalized;
      const double give = give_in_round(share, requested, i, left);
      if (give == 0) continue;
      s.fair_share += give;
      remaining -= give;
      // Someone wanted less than its share: the surplus goes round again.
      another_round = another_round || requested < share;
    }
    if (!another_round || remaining == 0) break;
  }
  return remaining;
}

// divideRemainingResource: at most one unit per queue, largest remainder first, then the older
// queue, then the smaller UID; request and limit are not checked again (as in KAI).
double divide_remaining(double remaining, std::span<const DivisionEntry> bucket,
                        const Leftovers& left) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < bucket.size(); ++i) {
    if (left.present[i]) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (left.amount[a] != left.amount[b]) return left.amount[a] > left.amount[b];
    if (*bucket[a].created != *bucket[b].created) return *bucket[a].created < *bucket[b].created;
    return bucket[a].uid < bucket[b].uid;
  });
  for (std::size_t i : order) {
    if (remaining == 0) break;
    const double give = std::min(1.0, remaining);
    bucket[i].share->fair_share += give;
    remaining -= give;
  }
  return remaining;
}

}  // namespace

double set_deserved(double total, std::span<const DivisionEntry> siblings) {
  double remaining = total;
  for (const DivisionEntry& q : siblings) {
    ResourceShare& s = *q.share;
    const double deserved = s.deserved == kUnlimited ? total : s.deserved;
    const double amount = std::min(deserved, s.requestable());
    s.fair_share += amount;
    remaining -= amount;
  }
  return remaining;
}

double divide_over_quota(double amount, double k_value, std::span<const DivisionEntry> siblings) {
  // Buckets by priority, highest first; a stable sort keeps the canonical order inside a bucket.
  std::vector<DivisionEntry> by_priority(siblings.begin(), siblings.end());
  std::stable_sort(
      by_priority.begin(), by_priority.end(),
      [](const DivisionEntry& a, const DivisionEntry& b) { return a.priority > b.priority; });
  std::vector<std::pair<std::size_t, std::size_t>> buckets;  // [begin, end) into by_priority
  for (std::size_t i = 0; i < by_priority.size(); ++i) {
    if (i == 0 || by_priority[i].priority != by_priority[i - 1].priority)
      buckets.emplace_back(i, i);
    buckets.back().second = i + 1;
  }

  std::vector<Leftovers> leftovers;
  leftovers.reserve(buckets.size());
  double remaining = amount;
  for (auto [begin, end] : buckets) {
    std::span<const DivisionEntry> bucket(by_priority.data() + begin, end - begin);
    leftovers.emplace_back(bucket.size());
    remaining = divide_up_to_fair_share(remaining, k_value, bucket, leftovers.back());
  }
  // Rounding remainders feed lower buckets first (above); what is still left goes out as single
  // units, bucket by bucket from the highest priority.
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    if (remaining <= 0) break;
    auto [begin, end] = buckets[b];
    std::span<const DivisionEntry> bucket(by_priority.data() + begin, end - begin);
    remaining = divide_remaining(remaining, bucket, leftovers[b]);
  }
  return remaining;
}

double set_resource_share(double total, double k_value, std::span<const DivisionEntry> siblings) {
  const double remaining = set_deserved(total, siblings);
  if (remaining > 0) return divide_over_quota(remaining, k_value, siblings);
  return 0;
}

}  // namespace sim::fairshare
