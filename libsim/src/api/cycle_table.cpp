#include "api/cycle_table.hpp"

#include <algorithm>
#include <sstream>

#include "io/yaml_field.hpp"
#include "sim/core/go_json.hpp"

namespace sim::api {
namespace {

using nlohmann::ordered_json;
using Row = std::vector<std::string>;

// Columns padded to their widest cell; `right` columns (numbers) aligned right.
std::string table(const Row& header, const std::vector<Row>& rows, const std::vector<bool>& right) {
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const Row& r : rows) {
    for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  }
  std::ostringstream s;
  auto line = [&](const Row& r) {
    std::string text;
    for (std::size_t c = 0; c < r.size(); ++c) {
      const std::string pad(width[c] - r[c].size(), ' ');
      text += (c ? "  " : "  ") + (right[c] ? pad + r[c] : r[c] + (c + 1 < r.size() ? pad : ""));
    }
    s << text << "\n";
  };
  line(header);
  for (const Row& r : rows) line(r);
  return s.str();
}

std::string str(const ordered_json& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  return go_json_number(v.get<double>());
}

std::string bound(double v) { return v == -1 ? "none" : go_json_number(v); }

// Bytes as a Kubernetes quantity people read: "192Gi", "256Mi", else bytes.
std::string memory(double bytes) {
  if (bytes == -1) return "none";
  const auto b = static_cast<long long>(bytes);
  if (b != 0 && b % (1LL << 30) == 0) return std::to_string(b >> 30) + "Gi";
  if (b != 0 && b % (1LL << 20) == 0) return std::to_string(b >> 20) + "Mi";
  return go_json_number(bytes);
}

std::string join(const ordered_json& list) {
  std::string out;
  for (const auto& x : list) out += (out.empty() ? "" : ",") + x.get<std::string>();
  return out.empty() ? "-" : out;
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

std::string cycle_table(const ordered_json& report, const std::vector<QueueBounds>& bounds,
                        std::int64_t now_ns) {
  std::ostringstream s;
  s << "kaisim cycle"
    << (now_ns > 0 ? " at " + io::format_rfc3339(now_ns / 1'000'000'000) : std::string()) << ": "
    << plural(report["binds"].size(), "bind", "binds") << ", "
    << plural(report["evictions"].size(), "eviction", "evictions") << ", "
    << plural(report["pipelined"].size(), "pipelined pod", "pipelined pods") << ", "
    << plural(report["pending"].size(), "job pending", "jobs pending") << "\n";

  if (!report["binds"].empty()) {
    std::vector<Row> rows;
    for (const auto& b : report["binds"]) {
      rows.push_back({b["pod"].get<std::string>(), b["node"].get<std::string>(), str(b["gpus"]),
                      str(b["gpuFraction"]), join(b["gpuGroups"])});
    }
    s << "\nbinds\n"
      << table({"pod", "node", "gpus", "fraction", "gpu groups"}, rows,
               {false, false, true, true, false});
  }
  if (!report["evictions"].empty()) {
    std::vector<Row> rows;
    for (const auto& e : report["evictions"]) {
      rows.push_back({e["pod"].get<std::string>(), e["node"].get<std::string>(),
                      e["reason"].get<std::string>(), str(e["for"]),
                      e["outcome"].get<std::string>()});
    }
    s << "\nevictions\n"
      << table({"pod", "node", "reason", "for PodGroup", "outcome"}, rows,
               {false, false, false, false, false});
  }
  if (!report["pipelined"].empty()) {
    std::vector<Row> rows;
    for (const auto& p : report["pipelined"]) {
      rows.push_back({p["pod"].get<std::string>(), p["node"].get<std::string>(),
                      p["action"].get<std::string>(), join(p["gpuGroups"])});
    }
    s << "\npipelined (run once releasing resources are free)\n"
      << table({"pod", "node", "action", "gpu groups"}, rows, {false, false, false, false});
  }

  std::vector<Row> rows;
  for (const QueueBounds& q : bounds) {
    const auto& fair = report["fairShare"][q.queue];
    const auto& queue = report["queues"][q.queue];
    const auto& status = queue["status"]["allocated"];
    rows.push_back({q.queue, str(fair["gpu"]), str(queue["allocated"]["gpu"]),
                    str(queue["requested"]["gpu"]), bound(at(q.quota, Resource::GPU)),
                    bound(at(q.limit, Resource::GPU)), status["cpu"].get<std::string>(),
                    bound(at(q.limit, Resource::CPU)),
                    memory(queue["allocated"]["memory"].get<double>()),
                    memory(at(q.limit, Resource::MEMORY))});
  }
  s << "\nqueues (GPUs in devices; cpu in cores or millicores (m), memory in bytes (Mi, Gi); none "
       "= unlimited)\n"
    << table({"queue", "fair share", "allocated", "requested", "quota", "limit", "cpu alloc",
              "cpu limit", "mem alloc", "mem limit"},
             rows, {false, true, true, true, true, true, true, true, true, true});

  if (!report["pending"].empty()) {
    s << "\npending (why each job waits)\n";
    std::vector<Row> jobs;
    for (const auto& p : report["pending"]) {
      jobs.push_back(
          {p["job"].get<std::string>(), p["queue"].get<std::string>(), str(p["pendingPods"])});
    }
    std::size_t job_w = 3, queue_w = 5;
    for (const Row& r : jobs) {
      job_w = std::max(job_w, r[0].size());
      queue_w = std::max(queue_w, r[1].size());
    }
    std::size_t i = 0;
    for (const auto& p : report["pending"]) {
      const Row& r = jobs[i++];
      s << "  " << r[0] << std::string(job_w - r[0].size(), ' ') << "  queue " << r[1]
        << std::string(queue_w - r[1].size(), ' ') << "  " << r[2]
        << (r[2] == "1" ? " pod" : " pods") << "\n";
      if (p["reasons"].empty()) s << "    - no reason recorded\n";
      for (const auto& why : p["reasons"]) s << "    - " << why.get<std::string>() << "\n";
    }
  }
  s << "\n(-o json for the full report, docs/cycle.md)\n";
  return s.str();
}

}  // namespace sim::api
