#include "metrics.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "sim/core/go_json.hpp"

namespace sim::replay {
namespace {

std::string seconds(std::int64_t ms) { return go_json_number(static_cast<double>(ms) / 1000.0); }

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  // Nearest rank.
  const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  return v[std::max<std::size_t>(rank, 1) - 1];
}

// The queue's pending time by cause (pod-seconds) and the pods still pending at the end.
std::string wait_by_cause_json(const std::map<std::string, WaitTotals>& totals,
                               const std::string& queue) {
  auto it = totals.find(queue);
  std::string out = ", \"wait_s_by_cause\": {";
  int waiting = 0;
  if (it != totals.end()) {
    bool first = true;
    for (const auto& [cause, ms] : it->second.ms_by_cause) {
      out += (first ? "" : ", ") + json_string(cause) + ": " + seconds(ms);
      first = false;
    }
    waiting = it->second.waiting_at_end;
  }
  return out + "}, \"pods_waiting_at_end\": " + std::to_string(waiting);
}

std::string stat_or_null(const std::vector<double>& v, double p) {
  return v.empty() ? "null" : go_json_number(percentile(v, p));
}

}  // namespace

// Integrates the previous sample up to now.
void Metrics::integrate(std::int64_t now_ms) {
  const double dt = static_cast<double>(now_ms - last_ms_) / 1000.0;
  for (auto& [name, totals] : totals_) {
    if (last_.contains(name))
      totals.gpu_seconds += at(last_.at(name).allocated, Resource::GPU) * dt;
  }
  cluster_gpu_seconds_ += allocated_gpus_now_ * dt;
  stranded_mib_seconds_ += stranded_mib_now_ * dt;
  last_ms_ = now_ms;
}

void Metrics::repeat(std::int64_t now_ms) {
  integrate(now_ms);
  const std::string time = seconds(now_ms);
  for (const std::string& row : last_kai_rows_) kai_timeline_ += time + row;
}

void Metrics::sample(const model::ClusterState& state, const QueueLedger& ledger,
                     const IdVector<QueueId, fairshare::QueueShares>& queues, std::int64_t now_ms) {
  const model::QueueTree& tree = state.queue_tree;
  integrate(now_ms);
  last_kai_rows_.clear();

  // Queue usage as the scheduler counts it after this cycle's decisions.
  const IdVector<QueueId, TimelineSums> sums = ledger.timeline();
  IdVector<QueueId, QueueSample> samples(tree.size());
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const QueueId q(static_cast<QueueId::value_type>(i));
    samples[q].allocated = sums[q].allocated;
    samples[q].allocated_np = sums[q].allocated_np;
    samples[q].requested = sums[q].requested;
  }
  double leaf_allocated = 0;
  for (QueueId q : tree.level_order()) {
    QueueSample& s = samples[q];
    s.leaf = tree.is_leaf(q);
    for (Resource r : kQuotaResources) {
      at(s.fair_share, r) = queues[q][r].fair_share;
      at(s.quota, r) = queues[q][r].deserved;
      at(s.limit, r) = queues[q][r].max_allowed;
    }
    const std::string& name = tree.uid(q);
    QueueTotals& totals = totals_[name];
    totals.quota_gpu = at(s.quota, Resource::GPU);
    if (s.leaf) leaf_allocated += at(s.allocated, Resource::GPU);

    // Timeline rows only when something changed for that queue and resource.
    const bool first = !last_.contains(name);
    for (Resource r : kQuotaResources) {
      const auto col = [&](const QueueSample& x) {
        return std::array<double, 6>{at(x.allocated, r),  at(x.allocated_np, r), at(x.requested, r),
                                     at(x.fair_share, r), at(x.quota, r),        at(x.limit, r)};
      };
      if (!first && col(last_.at(name)) == col(s)) continue;
      const auto v = col(s);
      timeline_ += seconds(now_ms) + "," + name + "," + std::string(resource_name(r));
      for (double x : v) timeline_ += "," + go_json_number(x);
      timeline_ += "\n";
    }
    if (s.leaf) {
      last_kai_rows_.push_back("," + name + "," + go_json_number(at(s.allocated, Resource::GPU)) +
                               "," + go_json_number(at(s.fair_share, Resource::GPU)) + "\n");
      kai_timeline_ += seconds(now_ms) + last_kai_rows_.back();
    }
    // Reclaim latency: from the moment the queue wants GPUs it is guaranteed but does not have,
    // until it holds min(quota, requested).
    const double quota = std::max(0.0, at(s.quota, Resource::GPU));
    const double want = std::min(quota, at(s.requested, Resource::GPU));
    const bool short_of_guarantee = at(s.allocated, Resource::GPU) + 1e-9 < want;
    if (short_of_guarantee && totals.starved_since_ms < 0) totals.starved_since_ms = now_ms;
    if (!short_of_guarantee && totals.starved_since_ms >= 0) {
      totals.reclaim_latencies_s.push_back(static_cast<double>(now_ms - totals.starved_since_ms) /
                                           1000.0);
      totals.starved_since_ms = -1;
    }
    last_[name] = s;
  }
  allocated_gpus_now_ = leaf_allocated;

  cluster_gpus_ = ledger.cluster_gpus();
  // Fragmentation from the pods themselves (the replay's ledger), not from the node's in-session
  // accounting: KAI's ConsolidateSharedPodInfoToDifferentGPU drops a record without subtracting
  // it, so after a what-if that accounting can count more memory than the GPU has (kaisim
  // mirrors that).
  stranded_mib_now_ = static_cast<double>(ledger.stranded_mib());
  stranded_mib_max_ = std::max(stranded_mib_max_, stranded_mib_now_);

  const std::array<double, 3> row{cluster_gpus_, allocated_gpus_now_, stranded_mib_now_};
  if (cluster_.size() == kClusterHeader.size() || row != last_cluster_row_) {
    cluster_ += seconds(now_ms);
    for (double x : row) cluster_ += "," + go_json_number(x);
    cluster_ += "\n";
    last_cluster_row_ = row;
  }
}

std::map<std::string, ResourceVec> Metrics::allocated_by_queue() const {
  std::map<std::string, ResourceVec> out;
  for (const auto& [name, s] : last_) out.emplace(name, s.allocated);
  return out;
}

void Metrics::record_events(const std::vector<PodEvent>& events) {
  for (const PodEvent& e : events) {
    events_ += "{\"time_s\":" + seconds(e.at_ms) +
               ",\"type\":" + json_string(std::string(event_name(e.type))) +
               ",\"pod\":" + json_string(e.pod) + ",\"queue\":" + json_string(e.queue);
    if (!e.node.empty()) events_ += ",\"node\":" + json_string(e.node);
    if (!e.reason.empty()) events_ += ",\"reason\":" + json_string(e.reason);
    if (!e.beneficiary.empty()) events_ += ",\"for\":" + json_string(e.beneficiary);
    if (!e.beneficiary_queue.empty())
      events_ += ",\"for_queue\":" + json_string(e.beneficiary_queue);
    events_ += ",\"gpus\":" + go_json_number(e.gpus) + "}\n";
    if (e.type == PodEventType::SUBMIT || e.type == PodEventType::RECREATE)
      submitted_[e.pod] = {e.at_ms, e.queue};
    if (e.type == PodEventType::GONE)
      submitted_.erase(e.pod);  // removed before it was bound: it no longer waits
    waits_.on_event(e);
    if (e.type == PodEventType::BIND) {
      auto it = submitted_.find(e.pod);
      if (it != submitted_.end()) {
        const double wait = static_cast<double>(e.at_ms - it->second.first) / 1000.0;
        totals_[e.queue].waits_s.push_back(wait);
        all_waits_s_.push_back(wait);
        submitted_.erase(it);
      }
    }
    if (e.type == PodEventType::EVICT) {
      ++evictions_;
      ++totals_[e.queue].evictions_suffered;
      if (!e.beneficiary_queue.empty()) ++totals_[e.beneficiary_queue].evictions_caused;
      evicted_at_.try_emplace(e.pod, e.at_ms);
    }
  }
}

void Metrics::finish(std::int64_t end_ms) {
  // Pods still waiting at the end waited at least until then: censored waits, counted in the
  // percentiles (which become lower bounds) and reported as waiting_at_end.
  for (const auto& [pod, submit] : submitted_) {
    const double wait = static_cast<double>(end_ms - submit.first) / 1000.0;
    QueueTotals& totals = totals_[submit.second];
    totals.waits_s.push_back(wait);
    ++totals.waiting_at_end;
    all_waits_s_.push_back(wait);
    ++waiting_at_end_;
  }
  submitted_.clear();
  waits_.finish(end_ms);
  const double dt = static_cast<double>(end_ms - last_ms_) / 1000.0;
  for (auto& [name, totals] : totals_) {
    if (last_.contains(name))
      totals.gpu_seconds += at(last_.at(name).allocated, Resource::GPU) * dt;
  }
  cluster_gpu_seconds_ += allocated_gpus_now_ * dt;
  stranded_mib_seconds_ += stranded_mib_now_ * dt;
  last_ms_ = end_ms;
}

double Metrics::allocated_gpu(const std::string& queue) const {
  auto it = last_.find(queue);
  return it == last_.end() ? 0 : at(it->second.allocated, Resource::GPU);
}

bool Metrics::evicted(const std::string& pod, std::int64_t by_ms) const {
  auto it = evicted_at_.find(pod);
  return it != evicted_at_.end() && it->second <= by_ms;
}

std::string Metrics::summary_json(const std::string& name, std::size_t cycles,
                                  std::int64_t duration_ms) const {
  const double span = static_cast<double>(duration_ms) / 1000.0;
  std::string out = "{\n  \"schema_version\": 1,\n  \"scenario\": " + json_string(name) +
                    ",\n  \"duration_s\": " + seconds(duration_ms) +
                    ",\n  \"cycles\": " + std::to_string(cycles) + ",\n  \"cluster\": {";
  const double util =
      cluster_gpus_ > 0 && span > 0 ? cluster_gpu_seconds_ / (cluster_gpus_ * span) : 0;
  out += "\"gpus\": " + go_json_number(cluster_gpus_) +
         ", \"gpu_utilisation\": " + go_json_number(util) +
         ", \"evictions\": " + std::to_string(evictions_) +
         ", \"wait_s_p50\": " + stat_or_null(all_waits_s_, 50) +
         ", \"wait_s_p95\": " + stat_or_null(all_waits_s_, 95) +
         ", \"pods_waiting_at_end\": " + std::to_string(waiting_at_end_) +
         ", \"stranded_gpu_memory_mib_mean\": " +
         go_json_number(span > 0 ? stranded_mib_seconds_ / span : 0) +
         ", \"stranded_gpu_memory_mib_max\": " + go_json_number(stranded_mib_max_) +
         "},\n  \"queues\": {";
  bool first = true;
  for (const auto& [queue, t] : totals_) {
    out += first ? "\n" : ",\n";
    first = false;
    const double queue_util =
        cluster_gpus_ > 0 && span > 0 ? t.gpu_seconds / (cluster_gpus_ * span) : 0;
    std::string latency_max = "null";
    if (!t.reclaim_latencies_s.empty())
      latency_max = go_json_number(
          *std::max_element(t.reclaim_latencies_s.begin(), t.reclaim_latencies_s.end()));
    out += "    " + json_string(queue) +
           ": {\"gpu_hours\": " + go_json_number(t.gpu_seconds / 3600.0) +
           ", \"gpu_share_of_cluster\": " + go_json_number(queue_util) + ", \"pods_bound\": " +
           std::to_string(t.waits_s.size() - static_cast<std::size_t>(t.waiting_at_end)) +
           ", \"pods_waiting_at_end\": " + std::to_string(t.waiting_at_end) +
           ", \"wait_s_p50\": " + stat_or_null(t.waits_s, 50) +
           ", \"wait_s_p95\": " + stat_or_null(t.waits_s, 95) +
           ", \"wait_s_max\": " + stat_or_null(t.waits_s, 100) +
           ", \"reclaim_latency_s_max\": " + latency_max +
           ", \"reclaim_episodes\": " + std::to_string(t.reclaim_latencies_s.size()) +
           ", \"still_short_of_guarantee\": " + (t.starved_since_ms >= 0 ? "true" : "false") +
           ", \"evictions_suffered\": " + std::to_string(t.evictions_suffered) +
           ", \"evictions_caused\": " + std::to_string(t.evictions_caused) +
           wait_by_cause_json(waits_.totals(), queue) + "}";
  }
  return out + "\n  }\n}\n";
}

std::string Metrics::summary_table(const std::string& name, std::size_t cycles,
                                   std::size_t cycles_reused, std::size_t cycles_fair_share_only,
                                   std::int64_t duration_ms) const {
  std::ostringstream s;
  s << "scenario " << name << ": " << go_json_number(static_cast<double>(duration_ms) / 1000.0)
    << " s virtual, " << cycles << " cycles";
  std::vector<std::string> kinds;
  if (cycles_reused > 0)
    kinds.push_back(std::to_string(cycles_reused) + " on an unchanged cluster, outcome reused");
  if (cycles_fair_share_only > 0)
    kinds.push_back(std::to_string(cycles_fair_share_only) +
                    " with nothing pending, fair share only");
  for (std::size_t i = 0; i < kinds.size(); ++i)
    s << (i == 0 ? " (" : "; ") << kinds[i] << (i + 1 == kinds.size() ? ")" : "");
  s << ", " << evictions_ << " evictions\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-22s %10s %10s %10s %10s %12s %9s\n", "queue", "gpu-hours",
                "wait p50", "wait p95", "wait max", "reclaim max", "evicted");
  s << line;
  auto fmt = [](const std::vector<double>& v, double p) {
    return v.empty() ? std::string("-") : go_json_number(percentile(v, p)) + "s";
  };
  for (const auto& [queue, t] : totals_) {
    std::string reclaim = "-";
    if (!t.reclaim_latencies_s.empty()) {
      reclaim = go_json_number(
                    *std::max_element(t.reclaim_latencies_s.begin(), t.reclaim_latencies_s.end())) +
                "s";
    }
    if (t.starved_since_ms >= 0) reclaim += " (open)";
    std::snprintf(line, sizeof line, "%-22s %10s %10s %10s %10s %12s %9d\n", queue.c_str(),
                  go_json_number(std::round(t.gpu_seconds / 3.6) / 1000.0).c_str(),
                  fmt(t.waits_s, 50).c_str(), fmt(t.waits_s, 95).c_str(),
                  fmt(t.waits_s, 100).c_str(), reclaim.c_str(), t.evictions_suffered);
    s << line;
  }
  std::string waiting;
  for (const auto& [queue, t] : totals_) {
    if (t.waiting_at_end > 0)
      waiting += (waiting.empty() ? "" : ", ") + queue + " " + std::to_string(t.waiting_at_end);
  }
  if (!waiting.empty())
    s << "pods still waiting at the end (their waits count until the end): " << waiting << "\n";
  return s.str();
}

}  // namespace sim::replay
