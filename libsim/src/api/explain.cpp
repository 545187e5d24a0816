#include "sim/api/explain.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/go_json.hpp"
#include "sim/io/quantity.hpp"

namespace sim::api {
namespace {

using nlohmann::json;

std::string num(double v) { return go_json_number(v); }

// Seconds as people read them: "30 s", "2 min 5 s", "3 h 20 min".
std::string duration(double s) {
  if (s < 120) return num(std::round(s * 1000) / 1000) + " s";
  const auto total = static_cast<std::int64_t>(std::llround(s));
  if (total < 3600)
    return std::to_string(total / 60) + " min" +
           (total % 60 ? " " + std::to_string(total % 60) + " s" : "");
  return std::to_string(total / 3600) + " h" +
         (total % 3600 / 60 ? " " + std::to_string(total % 3600 / 60) + " min" : "");
}

// A quantity in the resource's unit: GPUs as devices, cpu in millicores ("100m"), memory in bytes
// ("256Mi").
std::string amount(const std::string& resource, double v) {
  if (resource == "cpu") return io::format_milli_quantity(std::llround(v)) + " cpu";
  if (resource == "memory") {
    const double mi = v / (1024.0 * 1024.0);
    if (v != 0 && std::abs(mi - std::round(mi)) < 1e-9) return num(std::round(mi)) + "Mi memory";
    return num(v) + " bytes of memory";
  }
  if (resource == "gpu") return num(v) + (v == 1 ? " GPU" : " GPUs");
  return num(v) + " " + resource;
}

double number(const json& e, const char* key) {
  return e.contains(key) && e[key].is_number() ? e[key].get<double>() : 0;
}
std::string text(const json& e, const char* key) {
  return e.contains(key) && e[key].is_string() ? e[key].get<std::string>() : "";
}

// One `wait` event in a sentence, the cause first.
std::string sentence(const json& w) {
  const std::string cause = text(w, "cause");
  const std::string resource = text(w, "resource");
  const std::string queue = text(w, "at_queue");
  const bool stated = !w.contains("stated") || w["stated"].get<bool>();
  std::string out;
  if (cause == "OverLimit") {
    out = "OverLimit " + resource + ", limit " + num(number(w, "limit"));
    out += stated ? ": queue " + queue + " would exceed it"
                  : ", because the Queue has no " + resource + " block";
    out += " (queue " + queue + " holds " + amount(resource, number(w, "allocated")) +
           ", the job asks " + amount(resource, number(w, "requested")) + ")";
    if (!stated)
      out += "; KAI reads a missing block as limit 0: give the Queue " + resource +
             ": {quota: -1, limit: -1} or a real limit";
  } else if (cause == "NonPreemptibleOverQuota") {
    out = "NonPreemptibleOverQuota " + resource + ", quota " + num(number(w, "quota"));
    out += stated ? "" : ", because the Queue has no " + resource + " block";
    out += ": a non-preemptible job may not take queue " + queue +
           " over its quota (non-preemptible pods hold " +
           amount(resource, number(w, "allocated_non_preemptible")) + ", the job asks " +
           amount(resource, number(w, "requested")) + ")";
  } else if (cause == "OverQuota") {
    out = "OverQuota: no node has room for the pod (" + text(w, "shortage") + ": at most " +
          num(number(w, "largest_free")) + " GPU free on one node, " +
          num(number(w, "total_free")) + " in all), and queue " + queue + " already holds " +
          amount("gpu", number(w, "allocated")) + " of its fair share of " +
          num(number(w, "fair_share")) +
          ", so reclaim takes nothing from other queues for it; it runs when its own pods or "
          "others free room";
  } else if (cause == "NotEnoughGpus") {
    out = "not enough GPUs: the pod asks " + amount("gpu", number(w, "requested")) +
          ", the most free on one node is " + num(number(w, "largest_free")) + " (" +
          num(number(w, "total_free")) + " free over " + num(number(w, "nodes")) + " nodes)";
  } else if (cause == "NotEnoughGpuMemory") {
    out = "not enough GPU memory: the pod asks " + num(number(w, "requested")) +
          " of a GPU, the most free on one GPU is " + num(number(w, "largest_free")) + " (" +
          num(number(w, "total_free")) + " GPU free in all over " + num(number(w, "nodes")) +
          " nodes)";
  } else if (cause == "Fragmentation") {
    out = "fragmentation: " + num(number(w, "total_free")) + " GPU free in all over " +
          num(number(w, "nodes")) + " nodes, but at most " + num(number(w, "largest_free")) +
          " on one node or GPU, less than the " + num(number(w, "requested")) + " the pod asks";
  } else if (cause == "NotEnoughResources") {
    out = "not enough " + resource + " free on any of the " + num(number(w, "nodes")) + " nodes";
  } else if (cause == "NodeRules") {
    out = "no node is eligible: all " + num(number(w, "nodes")) +
          " nodes are ruled out (taints, node selector or affinity, pod affinity, readiness)";
  } else if (cause == "Gang") {
    out = "gang minimum: the job needs " + num(number(w, "gang_min")) + " pods at once, " +
          num(number(w, "gang_ready")) + " are ready";
  } else if (cause == "Topology") {
    out = "topology: no domain can hold the gang";
  } else if (cause == "Queue") {
    out = "queue: " + text(w, "message");
  } else {
    out = text(w, "message");
  }
  if (cause != "Gang" && w.contains("gang_min")) {
    out += "; the gang needs " + num(number(w, "gang_min")) +
           " pods at once and room was found for " + num(number(w, "gang_ready"));
  }
  return out;
}

struct Period {
  double from = 0, to = -1;  // to < 0: still open at the end
  std::string cause, what;
};

// One life of a pod in the replay (a name can come back: re-created, or applied again), from
// its events.
struct PodLife {
  std::string pod, queue;
  double submitted = -1, bound = -1, waited = 0;
  std::string node, end;  // how its pending life ended ("" = still pending)
  std::vector<Period> periods;
  std::vector<std::string> notes;  // evictions, deletions
  bool censored = false;
};

struct Replay {
  std::vector<std::string> pods;  // in order of first appearance
  std::map<std::string, std::vector<PodLife>> lives;
  json summary;
  double duration = 0;
};

void close_period(PodLife& p, double at) {
  if (!p.periods.empty() && p.periods.back().to < 0) p.periods.back().to = at;
}

void open_period(PodLife& p, double at, std::string cause, std::string what) {
  close_period(p, at);
  p.periods.push_back({at, -1, std::move(cause), std::move(what)});
}

Replay read(const std::string& events_jsonl, const std::string& summary_json,
            const std::string& folder) {
  Replay r;
  try {
    r.summary = json::parse(summary_json);
  } catch (const json::exception&) {
    throw InputError({folder + "/summary.json", 0, 0}, "",
                     "not a replay's summary.json (not JSON)");
  }
  if (!r.summary.is_object() || !r.summary.contains("queues") || !r.summary["queues"].is_object() ||
      !r.summary.contains("duration_s") || !r.summary["duration_s"].is_number()) {
    throw InputError({folder + "/summary.json", 0, 0}, "",
                     "not a replay's summary.json (no queues or duration_s)");
  }
  r.duration = r.summary["duration_s"].get<double>();
  std::istringstream lines(events_jsonl);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    ++n;
    if (line.empty()) continue;
    json e;
    try {
      e = json::parse(line);
    } catch (const json::exception&) {
      throw InputError({folder + "/events.jsonl", n, 1}, "", "not a JSON object");
    }
    if (!e.is_object()) throw InputError({folder + "/events.jsonl", n, 1}, "", "not a JSON object");
    const std::string pod = text(e, "pod"), type = text(e, "type");
    const double t = number(e, "time_s");
    if (pod.empty()) continue;
    auto [it, added] = r.lives.try_emplace(pod);
    if (added) r.pods.push_back(pod);
    std::vector<PodLife>& lives = it->second;
    if (type == "submit" || type == "recreate") {
      PodLife life;
      life.pod = pod;
      life.queue = text(e, "queue");
      life.submitted = t;
      if (type == "recreate")
        life.notes.push_back("re-created at " + duration(t) + " by its controller");
      open_period(life, t, "AwaitingCycle", "submitted, waiting for the next scheduling cycle");
      lives.push_back(std::move(life));
      continue;
    }
    if (lives.empty()) continue;
    PodLife& p = lives.back();
    if (type == "wait") {
      if (p.end.empty()) open_period(p, t, text(e, "cause"), sentence(e));
    } else if (type == "pipeline") {
      if (p.end.empty() && (p.periods.empty() || p.periods.back().cause != "Pipelined" ||
                            p.periods.back().to >= 0)) {
        open_period(p, t, "Pipelined",
                    "pipelined on " + text(e, "node") + " by " + text(e, "reason") +
                        ": waits for resources that are being released");
      }
    } else if (type == "bind") {
      close_period(p, t);
      if (p.submitted >= 0) p.waited = t - p.submitted;
      p.bound = t;
      p.node = text(e, "node");
      p.end = "bound";
    } else if (type == "evict") {
      p.notes.push_back("evicted at " + duration(t) + " by " + text(e, "reason") +
                        (e.contains("for")
                             ? " for " + text(e, "for") + " (queue " + text(e, "for_queue") + ")"
                             : ""));
    } else if (type == "delete" || type == "gone" || type == "lost" || type == "complete") {
      const std::string what = type == "complete" ? "completed"
                               : type == "lost"   ? "lost"
                                                  : "removed";
      if (p.end.empty()) {
        close_period(p, t);
        if (p.submitted >= 0) p.waited = t - p.submitted;
        p.end = what;
      }
      if (type != "gone" || p.notes.empty() || p.notes.back().rfind("removed", 0) != 0) {
        p.notes.push_back(what + " at " + duration(t));
      }
    }
  }
  for (auto& [name, lives] : r.lives) {
    for (PodLife& p : lives) {
      if (p.end.empty() && p.submitted >= 0) {
        p.censored = true;
        p.waited = r.duration - p.submitted;
        close_period(p, r.duration);
      }
    }
  }
  return r;
}

// The period a pod spent longest in, other than waiting for a cycle.
const Period* main_period(const PodLife& p) {
  const Period* best = nullptr;
  for (const Period& x : p.periods) {
    if (x.cause == "AwaitingCycle" && p.periods.size() > 1) continue;
    if (!best || x.to - x.from > best->to - best->from) best = &x;
  }
  return best;
}

// The life that waited longest (the first of equals).
const PodLife& longest(const std::vector<PodLife>& lives) {
  const PodLife* best = &lives.front();
  for (const PodLife& p : lives) best = p.waited > best->waited ? &p : best;
  return *best;
}

std::string one_line(const PodLife& p) {
  std::string out =
      p.pod + (p.censored ? " still waiting after " : " waited ") + duration(p.waited);
  if (const Period* m = main_period(p); m && p.waited > 0)
    out += ": " + m->what;
  else if (p.waited == 0 && p.bound >= 0)
    out += ": bound at once";
  return out;
}

void life_story(std::ostringstream& s, const Replay& r, const PodLife& p) {
  s << "  queue " << p.queue << "; submitted at " << duration(std::max(0.0, p.submitted));
  if (p.bound >= 0)
    s << ", bound at " << duration(p.bound) << " on " << p.node;
  else if (p.censored)
    s << ", still pending when the replay ended at " << duration(r.duration)
      << " (a censored wait)";
  else if (!p.end.empty())
    s << ", " << p.end << " before it was bound";
  s << "\n";
  int shown = 0;
  for (const Period& x : p.periods)
    shown += x.to - x.from > 0 || x.cause != "AwaitingCycle" ? 1 : 0;
  // The periods one by one, unless there is only one (the headline tells it).
  for (const Period& x : p.periods) {
    if (shown <= 1) break;
    if (x.to - x.from <= 0 && x.cause == "AwaitingCycle") continue;
    s << "    from " << duration(x.from) << " for " << duration(x.to - x.from) << ": " << x.what
      << "\n";
  }
  for (const std::string& note : p.notes) s << "    " << note << "\n";
}

std::string pod_story(const Replay& r, const std::vector<PodLife>& lives) {
  std::ostringstream s;
  s << one_line(longest(lives)) << "\n";
  for (std::size_t i = 0; i < lives.size(); ++i) {
    if (lives.size() > 1) {
      s << "  life " << (i + 1) << " of " << lives.size() << ": "
        << one_line(lives[i]).substr(lives[i].pod.size() + 1) << "\n";
    }
    life_story(s, r, lives[i]);
  }
  return s.str();
}

std::string queue_story(const Replay& r, const std::string& queue) {
  const json& q = r.summary["queues"][queue];
  std::ostringstream s;
  std::vector<const PodLife*> pods;
  for (const std::string& name : r.pods) {
    for (const PodLife& p : r.lives.at(name)) {
      if (p.queue == queue) pods.push_back(&p);
    }
  }
  if (pods.empty()) return "";  // a parent queue: its pods are its children's
  // Waiting only for the next cycle (less than one schedulePeriod) is not worth a story.
  auto only_for_a_cycle = [](const PodLife* p) {
    return std::all_of(p->periods.begin(), p->periods.end(),
                       [](const Period& x) { return x.cause == "AwaitingCycle"; });
  };
  int waited = 0;
  for (const PodLife* p : pods) waited += p->waited > 0 && !only_for_a_cycle(p) ? 1 : 0;
  s << "queue " << queue << ": " << pods.size() << (pods.size() == 1 ? " pod, " : " pods, ")
    << waited << " waited longer than for the next cycle";
  if (q.contains("pods_waiting_at_end") && q["pods_waiting_at_end"].is_number() &&
      q["pods_waiting_at_end"].get<int>() > 0) {
    s << ", " << q["pods_waiting_at_end"].get<int>() << " still waiting at the end";
  }
  s << "\n";
  if (q.contains("wait_s_by_cause") && q["wait_s_by_cause"].is_object() &&
      !q["wait_s_by_cause"].empty()) {
    std::vector<std::pair<double, std::string>> causes;
    for (const auto& [cause, v] : q["wait_s_by_cause"].items())
      causes.emplace_back(v.is_number() ? v.get<double>() : 0, cause);
    std::sort(causes.begin(), causes.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    s << "  time waited by cause (summed over pods):";
    for (std::size_t i = 0; i < causes.size(); ++i)
      s << (i ? ", " : " ") << duration(causes[i].first) << " " << causes[i].second;
    s << "\n";
  }
  std::stable_sort(pods.begin(), pods.end(),
                   [](const PodLife* a, const PodLife* b) { return a->waited > b->waited; });
  std::size_t told = 0;
  for (const PodLife* p : pods) {
    if (told == 10 || p->waited <= 0) break;
    if (only_for_a_cycle(p)) continue;
    s << "  " << one_line(*p) << "\n";
    ++told;
  }
  return s.str();
}

}  // namespace

std::string explain_replay(const std::string& events_jsonl, const std::string& summary_json,
                           const std::string& target, const std::string& folder) {
  const Replay r = read(events_jsonl, summary_json, folder);
  if (target.empty()) {
    std::ostringstream s;
    s << "replay " << r.summary.value("scenario", std::string()) << ": " << duration(r.duration)
      << " virtual, " << r.pods.size() << (r.pods.size() == 1 ? " pod\n" : " pods\n");
    for (const auto& [queue, q] : r.summary["queues"].items()) s << queue_story(r, queue);
    s << "(kaisim explain " << folder << " POD or QUEUE tells one story in full)\n";
    return s.str();
  }
  if (r.summary["queues"].contains(target)) return queue_story(r, target);
  if (auto it = r.lives.find(target); it != r.lives.end()) return pod_story(r, it->second);
  const std::vector<PodLife>* found = nullptr;
  int matches = 0;
  for (const auto& [name, lives] : r.lives) {
    if (name.size() > target.size() &&
        name.compare(name.size() - target.size(), target.size(), target) == 0 &&
        name[name.size() - target.size() - 1] == '/') {
      found = &lives;
      ++matches;
    }
  }
  if (matches == 1) return pod_story(r, *found);
  if (matches > 1)
    throw InputError({}, "",
                     "pod name \"" + target + "\" is in several namespaces; give namespace/name");
  throw InputError({}, "", "no pod or queue \"" + target + "\" in the replay " + folder);
}

}  // namespace sim::api
