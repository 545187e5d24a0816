#include "trace_csv.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "generators.hpp"
#include "io/yaml_field.hpp"
#include "sim/io/quantity.hpp"

namespace sim::replay {
namespace {

constexpr std::size_t kMaxTracePods = 200'000;  // the generators' bound: a runaway file fails fast

const std::vector<std::string_view>& known_columns() {
  static const std::vector<std::string_view> columns{
      "submit_s",     "name",           "queue", "namespace", "priority_class", "gpus",
      "gpu_fraction", "gpu_memory_mib", "cpu",   "memory",    "runtime_s"};
  return columns;
}

// Cells are separated by commas; traces carry no quoting (names and quantities hold no commas).
std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> cells;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    std::string_view cell = line.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    while (!cell.empty() && (cell.front() == ' ' || cell.front() == '\t')) cell.remove_prefix(1);
    while (!cell.empty() && (cell.back() == ' ' || cell.back() == '\t' || cell.back() == '\r'))
      cell.remove_suffix(1);
    cells.push_back(cell);
    if (comma == std::string_view::npos) return cells;
    start = comma + 1;
  }
}

class Row {
 public:
  Row(const std::string& file, int line, const std::vector<std::string_view>& cells,
      const std::map<std::string_view, std::size_t>& columns)
      : file_(file), line_(line), cells_(cells), columns_(columns) {}

  std::string_view get(std::string_view column) const {
    auto it = columns_.find(column);
    return it == columns_.end() || it->second >= cells_.size() ? std::string_view()
                                                               : cells_[it->second];
  }

  [[noreturn]] void fail(std::string_view column, const std::string& detail) const {
    auto it = columns_.find(column);
    const int col = it == columns_.end() ? 0 : static_cast<int>(it->second) + 1;
    throw InputError({file_, line_, col}, std::string(column), detail);
  }

  double number(std::string_view column, double fallback) const {
    const std::string_view text = get(column);
    if (text.empty()) return fallback;
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
      fail(column, "not a number: \"" + std::string(text) + "\"");
    }
    return value;
  }

  int whole(std::string_view column) const {
    const double x = number(column, 0);
    if (x < 0 || x != std::floor(x) || x > 1e6) fail(column, "must be a whole number >= 0");
    return static_cast<int>(x);
  }

  std::string quantity(std::string_view column) const {
    const std::string_view text = get(column);
    if (!text.empty() && !io::parse_quantity(text)) {
      fail(column, "not a Kubernetes quantity such as \"500m\", \"2\" or \"4Gi\": \"" +
                       std::string(text) + "\"");
    }
    return std::string(text);
  }

  std::string required(std::string_view column) const {
    const std::string_view text = get(column);
    if (text.empty()) fail(column, "required, empty");
    return std::string(text);
  }

 private:
  const std::string& file_;
  int line_;
  const std::vector<std::string_view>& cells_;
  const std::map<std::string_view, std::size_t>& columns_;
};

PodShape read_row(const Row& row, std::int64_t& at_ms) {
  PodShape pod;
  const double submit = row.number("submit_s", -1);
  if (!(submit >= 0) || submit > 1e9)
    row.fail("submit_s", "required: seconds from the start, >= 0");
  at_ms = std::llround(submit * 1000);
  pod.name = row.required("name");
  pod.queue = row.required("queue");
  if (const std::string_view ns = row.get("namespace"); !ns.empty()) pod.ns = ns;
  if (const std::string_view cls = row.get("priority_class"); !cls.empty())
    pod.priority_class = cls;
  pod.gpus = row.whole("gpus");
  pod.gpu_fraction = row.number("gpu_fraction", 0);
  if (pod.gpu_fraction < 0 || pod.gpu_fraction >= 1)
    row.fail("gpu_fraction", "must be between 0 and 1 (exclusive), or empty");
  pod.gpu_memory_mib = row.whole("gpu_memory_mib");
  if ((pod.gpus > 0) + (pod.gpu_fraction > 0) + (pod.gpu_memory_mib > 0) > 1) {
    row.fail(pod.gpu_fraction > 0 ? "gpu_fraction" : "gpu_memory_mib",
             "give one of gpus, gpu_fraction, gpu_memory_mib");
  }
  pod.cpu = row.quantity("cpu");
  pod.memory = row.quantity("memory");
  const double runtime = row.number("runtime_s", 0);
  if (runtime < 0 || runtime > 1e9)
    row.fail("runtime_s", "must be seconds > 0, or empty for a pod that runs until deleted");
  pod.runtime_ms = runtime > 0 ? std::max<std::int64_t>(1, std::llround(runtime * 1000)) : -1;
  return pod;
}

}  // namespace

std::vector<Step> read_trace_csv(const std::string& text, const std::string& file,
                                 Diagnostics& diagnostics) {
  io::require_utf8(text, file);
  std::map<std::string_view, std::size_t> columns;
  std::map<std::int64_t, Step> by_time;
  std::set<std::string> names;
  std::size_t pods = 0;
  int line_no = 0;
  std::size_t pos = 0;
  bool header = true;
  std::size_t header_cells = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.empty() || line == "\r" || line.front() == '#') continue;
    const std::vector<std::string_view> cells = split(line);
    if (header) {
      header = false;
      header_cells = cells.size();
      for (std::size_t i = 0; i < cells.size(); ++i) {
        auto known = std::find(known_columns().begin(), known_columns().end(), cells[i]);
        if (known == known_columns().end()) {
          diagnostics.warn({file, line_no, static_cast<int>(i) + 1}, std::string(cells[i]),
                           "unknown column, ignored");
        } else if (!columns.emplace(*known, i).second) {
          throw InputError({file, line_no, static_cast<int>(i) + 1}, std::string(cells[i]),
                           "column repeats");
        }
      }
      for (const char* needed : {"submit_s", "name", "queue"}) {
        if (!columns.contains(needed)) {
          throw InputError({file, line_no, 0}, "",
                           std::string("header lacks the required column \"") + needed + "\"");
        }
      }
      continue;
    }
    if (cells.size() > header_cells) {
      // A shifted row would silently put values into other fields.
      throw InputError({file, line_no, static_cast<int>(header_cells) + 1}, "",
                       "row has " + std::to_string(cells.size()) + " cells, the header " +
                           std::to_string(header_cells));
    }
    const Row row(file, line_no, cells, columns);
    std::int64_t at_ms = 0;
    PodShape pod = read_row(row, at_ms);
    if (!names.insert(pod.ns + "/" + pod.name).second)
      row.fail("name", "pod " + pod.ns + "/" + pod.name + " repeats");
    if (++pods > kMaxTracePods)
      row.fail("name", "a trace may hold at most " + std::to_string(kMaxTracePods) + " pods");
    pod.line = line_no;
    Step& step = by_time[at_ms];
    if (step.pods.empty()) step.where = {file, line_no, 1}, step.path = "submit_s";
    step.at_ms = at_ms;
    step.name = "trace";
    step.pods.push_back(std::move(pod));
    step.pods_file = file;
  }
  if (header)
    throw InputError({file, 0, 0}, "",
                     "empty trace: expected a header line such as submit_s,name,queue,gpus");
  std::vector<Step> steps;
  steps.reserve(by_time.size());
  for (auto& [at, step] : by_time) steps.push_back(std::move(step));
  return steps;
}

}  // namespace sim::replay
