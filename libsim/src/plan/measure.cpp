#include "measure.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/core/error.hpp"

namespace sim::plan {
namespace {

using nlohmann::json;

std::vector<std::string> ancestry(const MeasureOptions& o, const std::string& queue) {
  std::vector<std::string> out{queue};
  for (int depth = 0; depth < 64; ++depth) {  // the tree has no cycles (the replay checked)
    auto it = o.parents.find(out.back());
    if (it == o.parents.end() || it->second.empty()) break;
    out.push_back(it->second);
  }
  return out;
}

double seconds(std::int64_t ms) { return static_cast<double>(ms) / 1000.0; }

std::int64_t ms_of(double s) { return std::llround(s * 1000.0); }

struct Row {
  std::int64_t at_ms;
  double allocated, allocated_np, requested, quota;
};

int resource_index(std::string_view r) {
  return r == "cpu" ? 0 : r == "memory" ? 1 : r == "gpu" ? 2 : -1;
}

void reclaim_episodes(const std::vector<Row>& rows, std::int64_t end_ms, PodWaits& w) {
  std::int64_t since = -1;
  for (const Row& r : rows) {
    // replay/metrics.cpp: short of its guarantee while asking for it.
    const double want = std::min(std::max(0.0, r.quota), r.requested);
    const bool short_now = r.allocated + 1e-9 < want;
    if (short_now && since < 0) since = r.at_ms;
    if (!short_now && since >= 0) {
      w.reclaim_latency_max_s = std::max(w.reclaim_latency_max_s, seconds(r.at_ms - since));
      since = -1;
    }
  }
  if (since >= 0) {
    w.reclaim_latency_max_s = std::max(w.reclaim_latency_max_s, seconds(end_ms - since));
    w.short_at_end = true;
  }
}

json waits_json(const PodWaits& w) {
  return json{{"waits_s", w.waits_s},
              {"never_bound", w.never_bound},
              {"evictions", w.evictions},
              {"reclaim_latency_max_s", w.reclaim_latency_max_s},
              {"short_at_end", w.short_at_end}};
}

PodWaits waits_from(const json& j) {
  PodWaits w;
  w.waits_s = j.at("waits_s").get<std::vector<double>>();
  w.never_bound = j.at("never_bound").get<int>();
  w.evictions = j.at("evictions").get<int>();
  w.reclaim_latency_max_s = j.at("reclaim_latency_max_s").get<double>();
  w.short_at_end = j.at("short_at_end").get<bool>();
  return w;
}

json triple(const double (&v)[3]) { return json::array({v[0], v[1], v[2]}); }

void triple_from(const json& j, double (&v)[3]) {
  for (int i = 0; i < 3; ++i) v[i] = j.at(static_cast<std::size_t>(i)).get<double>();
}

}  // namespace

double nearest_rank(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto rank =
      static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::max<std::size_t>(rank, 1) - 1];
}

SeedMeasure measure(const std::map<std::string, std::string>& outputs,
                    const std::map<std::string, std::map<std::string, double>>& pending,
                    const MeasureOptions& options, std::uint64_t seed, std::size_t cycles) {
  SeedMeasure m;
  m.seed = seed;
  m.cycles = cycles;
  m.pending = pending;
  const json summary = json::parse(outputs.at("summary.json"));
  m.duration_s = summary.at("duration_s").get<double>();
  m.gpus = summary.at("cluster").at("gpus").get<double>();
  m.utilization = summary.at("cluster").at("gpu_utilisation").get<double>();
  const std::int64_t end_ms = ms_of(m.duration_s);
  for (const auto& [queue, parent] : options.parents) m.queues[queue];

  // Waits from the events: submit (or a controller's re-creation) to bind; a pod deleted or
  // gone before it was bound waited for nothing; one still pending waits until the end.
  struct Open {
    std::int64_t at_ms;
    std::string queue;
  };
  std::map<std::string, Open> open;
  auto record = [&](const std::string& queue, double wait) {
    m.cluster.waits_s.push_back(wait);
    for (const std::string& q : ancestry(options, queue)) m.queues[q].waits_s.push_back(wait);
  };
  std::istringstream events(outputs.at("events.jsonl"));
  for (std::string line; std::getline(events, line);) {
    if (line.empty()) continue;
    const json e = json::parse(line);
    const std::string& type = e.at("type").get_ref<const std::string&>();
    const std::string& pod = e.at("pod").get_ref<const std::string&>();
    const std::int64_t at = ms_of(e.at("time_s").get<double>());
    if (type == "submit" || type == "recreate") {
      if (at >= options.warmup_ms) {
        open[pod] = {at, e.at("queue").get<std::string>()};
        m.gpus_submitted[open[pod].queue] += e.at("gpus").get<double>();
      }
    } else if (type == "bind") {
      auto it = open.find(pod);
      if (it != open.end()) {
        record(it->second.queue, seconds(at - it->second.at_ms));
        open.erase(it);
      }
    } else if (type == "delete" || type == "gone" || type == "lost") {
      open.erase(pod);
    } else if (type == "evict") {
      ++m.cluster.evictions;
      for (const std::string& q : ancestry(options, e.at("queue").get<std::string>()))
        ++m.queues[q].evictions;
    }
  }
  for (const auto& [pod, o] : open) {
    record(o.queue, seconds(end_ms - o.at_ms));
    ++m.cluster.never_bound;
    for (const std::string& q : ancestry(options, o.queue)) ++m.queues[q].never_bound;
  }
  std::sort(m.cluster.waits_s.begin(), m.cluster.waits_s.end());
  for (auto& [q, w] : m.queues) std::sort(w.waits_s.begin(), w.waits_s.end());

  // Reclaim latency and Queue.status from the timeline (a row whenever a value changed).
  std::map<std::string, std::vector<Row>> gpu_rows;
  std::map<std::string, std::array<std::vector<Row>, 3>> rows;
  std::istringstream timeline(outputs.at("timeline.csv"));
  std::string line;
  std::getline(timeline, line);  // header
  while (std::getline(timeline, line)) {
    std::array<std::string_view, 9> cell;
    std::size_t start = 0;
    for (std::size_t i = 0; i < cell.size(); ++i) {
      const std::size_t comma = line.find(',', start);
      cell[i] = std::string_view(line).substr(
          start, comma == std::string::npos ? std::string::npos : comma - start);
      start = comma == std::string::npos ? line.size() : comma + 1;
    }
    const int r = resource_index(cell[2]);
    if (r < 0) continue;
    auto num = [](std::string_view s) { return std::stod(std::string(s)); };
    const Row row{ms_of(num(cell[0])), num(cell[3]), num(cell[4]), num(cell[5]), num(cell[7])};
    rows[std::string(cell[1])][static_cast<std::size_t>(r)].push_back(row);
  }
  for (const auto& [queue, by_resource] : rows) {
    if (!m.queues.contains(queue)) continue;
    reclaim_episodes(by_resource[2], end_ms, m.queues[queue]);
  }
  for (const auto& [queue, by_resource] : rows) {
    const std::vector<Row>& gpu = by_resource[2];
    std::vector<double>& d = m.demand[queue];
    std::size_t next = 0;
    double requested = 0;
    for (int k = 0; k < kDemandSamples; ++k) {
      const std::int64_t at =
          options.warmup_ms + (end_ms - options.warmup_ms) * (2 * k + 1) / (2 * kDemandSamples);
      while (next < gpu.size() && gpu[next].at_ms <= at) requested = gpu[next++].requested;
      d.push_back(requested);
    }
  }
  for (std::int64_t at : options.status_at_ms) {
    if (at > end_ms) continue;
    StatusSample s;
    s.at_ms = at;
    for (const auto& [queue, by_resource] : rows) {
      QueueStatus st;
      for (std::size_t r = 0; r < 3; ++r) {
        const Row* last = nullptr;
        for (const Row& row : by_resource[r]) {
          if (row.at_ms > at) break;
          last = &row;
        }
        if (last == nullptr) continue;
        st.allocated[r] = last->allocated;
        st.allocated_non_preemptible[r] = last->allocated_np;
        st.requested[r] = last->requested;
      }
      s.queues[queue] = st;
    }
    m.status.push_back(std::move(s));
  }
  return m;
}

double metric_value(const SeedMeasure& m, const Target& t, const std::string& queue) {
  const PodWaits* w = &m.cluster;
  if (queue != "cluster") {
    auto it = m.queues.find(queue);
    static const PodWaits empty;
    w = it == m.queues.end() ? &empty : &it->second;
  }
  switch (t.metric) {
    case Metric::WAIT_P95:
      return nearest_rank(w->waits_s, 95);
    case Metric::WAIT_MAX:
      return w->waits_s.empty() ? 0 : w->waits_s.back();
    case Metric::WAIT_MEAN: {
      double sum = 0;
      for (double x : w->waits_s) sum += x;
      return w->waits_s.empty() ? 0 : sum / static_cast<double>(w->waits_s.size());
    }
    case Metric::WAIT_PROBABILITY: {
      if (w->waits_s.empty()) return 0;
      const auto over = std::upper_bound(w->waits_s.begin(), w->waits_s.end(), t.over_s);
      return static_cast<double>(w->waits_s.end() - over) / static_cast<double>(w->waits_s.size());
    }
    case Metric::RECLAIM_LATENCY_MAX:
      return w->reclaim_latency_max_s;
    case Metric::EVICTIONS_MAX:
      return w->evictions;
    case Metric::UTILIZATION_MIN:
      return m.utilization;
  }
  return 0;
}

std::string measure_to_json(const SeedMeasure& m) {
  json j{{"seed", m.seed},     {"duration_s", m.duration_s},
         {"gpus", m.gpus},     {"utilization", m.utilization},
         {"cycles", m.cycles}, {"cluster", waits_json(m.cluster)}};
  json queues = json::object();
  for (const auto& [q, w] : m.queues) queues[q] = waits_json(w);
  j["queues"] = queues;
  j["pending"] = m.pending;
  json status = json::array();
  for (const StatusSample& s : m.status) {
    json qs = json::object();
    for (const auto& [q, st] : s.queues) {
      qs[q] = {triple(st.allocated), triple(st.allocated_non_preemptible), triple(st.requested)};
    }
    status.push_back({{"at_ms", s.at_ms}, {"queues", qs}});
  }
  j["status"] = status;
  j["demand"] = m.demand;
  j["gpus_submitted"] = m.gpus_submitted;
  j["stopped_by"] = m.stopped_by;
  j["stopped_at_s"] = m.stopped_at_s;
  return j.dump();
}

SeedMeasure measure_from_json(const std::string& text) {
  try {
    const json j = json::parse(text);
    SeedMeasure m;
    m.seed = j.at("seed").get<std::uint64_t>();
    m.duration_s = j.at("duration_s").get<double>();
    m.gpus = j.at("gpus").get<double>();
    m.utilization = j.at("utilization").get<double>();
    m.cycles = j.at("cycles").get<std::size_t>();
    m.cluster = waits_from(j.at("cluster"));
    for (const auto& [q, w] : j.at("queues").items()) m.queues[q] = waits_from(w);
    m.pending = j.at("pending").get<std::map<std::string, std::map<std::string, double>>>();
    for (const json& s : j.at("status")) {
      StatusSample sample;
      sample.at_ms = s.at("at_ms").get<std::int64_t>();
      for (const auto& [q, v] : s.at("queues").items()) {
        QueueStatus st;
        triple_from(v.at(0), st.allocated);
        triple_from(v.at(1), st.allocated_non_preemptible);
        triple_from(v.at(2), st.requested);
        sample.queues[q] = st;
      }
      m.status.push_back(std::move(sample));
    }
    m.demand = j.at("demand").get<std::map<std::string, std::vector<double>>>();
    m.gpus_submitted = j.at("gpus_submitted").get<std::map<std::string, double>>();
    m.stopped_by = j.at("stopped_by").get<std::string>();
    m.stopped_at_s = j.at("stopped_at_s").get<double>();
    return m;
  } catch (const json::exception& e) {
    throw Error(ErrorCode::INTERNAL,
                std::string("a replay's measure could not be read back: ") + e.what());
  }
}

}  // namespace sim::plan
