// report.md and report.html: the answer, the targets, why any fails, every candidate judged, and
// the figures (gnuplot SVG files that report.md links and report.html carries inline, so the
// page opens offline).

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "gnuplot.hpp"
#include "plan_output.hpp"
#include "sim/core/go_json.hpp"

namespace sim::plan {
namespace {

using sim::go_json_number;

std::string num(double v, int digits = 3) {
  if (!std::isfinite(v)) return "-";
  const double scale = std::pow(10.0, digits);
  return go_json_number(std::round(v * scale) / scale);
}

std::string seconds_text(double s) {
  if (!std::isfinite(s)) return "-";
  if (s < 120) return num(s, 1) + " s";
  if (s < 7200) return num(s / 60, 1) + " min";
  return num(s / 3600, 2) + " h";
}

std::string value_text(Metric m, double v) {
  switch (m) {
    case Metric::WAIT_P95:
    case Metric::WAIT_MAX:
    case Metric::WAIT_MEAN:
    case Metric::RECLAIM_LATENCY_MAX:
      return seconds_text(v);
    case Metric::EVICTIONS_MAX:
      return num(v, 1);
    default:
      return num(v, 4);
  }
}

std::string seed_list(const std::vector<std::uint64_t>& seeds) {
  if (seeds.empty()) return "none";
  bool run = true;
  for (std::size_t i = 1; i < seeds.size(); ++i) run = run && seeds[i] == seeds[i - 1] + 1;
  if (run && seeds.size() > 2)
    return std::to_string(seeds.front()) + "-" + std::to_string(seeds.back());
  std::string out;
  for (std::uint64_t s : seeds) out += (out.empty() ? "" : ", ") + std::to_string(s);
  return out;
}

// A document both reports render: headings, paragraphs, tables and figures.
struct Block {
  enum Kind { HEADING, PARAGRAPH, TABLE, FIGURE } kind;
  std::string text;                            // heading, paragraph, figure caption
  std::vector<std::vector<std::string>> rows;  // table, first row the header
  std::string file;                            // figure
};

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string render_md(const std::string& title, const std::vector<Block>& blocks, bool figures) {
  std::ostringstream s;
  s << "# " << title << "\n\n";
  for (const Block& b : blocks) {
    switch (b.kind) {
      case Block::HEADING:
        s << "## " << b.text << "\n\n";
        break;
      case Block::PARAGRAPH:
        s << b.text << "\n\n";
        break;
      case Block::TABLE:
        for (std::size_t r = 0; r < b.rows.size(); ++r) {
          s << "|";
          for (const std::string& c : b.rows[r]) s << " " << md_cell(c) << " |";
          s << "\n";
          if (r == 0) {
            s << "|";
            for (std::size_t c = 0; c < b.rows[r].size(); ++c) s << "---|";
            s << "\n";
          }
        }
        s << "\n";
        break;
      case Block::FIGURE:
        if (figures) s << "![" << b.text << "](" << b.file << ")\n\n*" << b.text << "*\n\n";
        break;
    }
  }
  return s.str();
}

// The SVG element alone (gnuplot writes an XML declaration and a DOCTYPE first).
std::string inline_svg(const std::string& svg) {
  const std::size_t at = svg.find("<svg");
  return at == std::string::npos ? svg : svg.substr(at);
}

std::string render_html(const std::string& title, const std::vector<Block>& blocks,
                        const std::map<std::string, std::string>& svgs) {
  std::ostringstream s;
  s << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
    << html_escape(title)
    << "</title>\n<style>\nbody{font-family:sans-serif;max-width:64em;margin:2em auto;padding:0 "
       "1em;color:#222}\n"
       "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:.25em "
       ".6em;text-align:left}\n"
       "th{background:#eee}figure{margin:1.5em "
       "0}figcaption{font-style:italic}svg{max-width:100%;height:auto}\n"
       "</style>\n</head>\n<body>\n<h1>"
    << html_escape(title) << "</h1>\n";
  for (const Block& b : blocks) {
    switch (b.kind) {
      case Block::HEADING:
        s << "<h2>" << html_escape(b.text) << "</h2>\n";
        break;
      case Block::PARAGRAPH:
        s << "<p>" << html_escape(b.text) << "</p>\n";
        break;
      case Block::TABLE:
        s << "<table>\n";
        for (std::size_t r = 0; r < b.rows.size(); ++r) {
          s << "<tr>";
          for (const std::string& c : b.rows[r])
            s << (r == 0 ? "<th>" : "<td>") << html_escape(c) << (r == 0 ? "</th>" : "</td>");
          s << "</tr>\n";
        }
        s << "</table>\n";
        break;
      case Block::FIGURE: {
        auto it = svgs.find(b.file);
        if (it == svgs.end()) break;
        s << "<figure>\n"
          << inline_svg(it->second) << "\n<figcaption>" << html_escape(b.text)
          << "</figcaption>\n</figure>\n";
        break;
      }
    }
  }
  s << "</body>\n</html>\n";
  return s.str();
}

// The wait target the GPU figure shows: wait_p95 if the plan has one, else the first wait-like.
std::optional<Metric> curve_metric(const PlanSpec& plan) {
  for (Metric m :
       {Metric::WAIT_P95, Metric::WAIT_PROBABILITY, Metric::WAIT_MEAN, Metric::WAIT_MAX}) {
    for (const Target& t : plan.targets) {
      if (t.metric == m) return m;
    }
  }
  return std::nullopt;
}

std::string axis_label(Metric m) {
  switch (m) {
    case Metric::WAIT_P95:
      return "p95 wait (s)";
    case Metric::WAIT_MAX:
      return "longest wait (s)";
    case Metric::WAIT_MEAN:
      return "mean wait (s)";
    case Metric::WAIT_PROBABILITY:
      return "share of pods that waited (fraction)";
    default:
      return metric_name(m);
  }
}

const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                          "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};

struct Series {
  std::string title;
  std::vector<std::array<double, 4>> points;  // x, mean, lower, upper
  std::vector<std::array<double, 2>>
      stopped;  // x, value: replays stopped once the target was missed
};

// A line per series with its band (the two one-sided bounds), and the target lines.
Figure curve_figure(const std::string& file, const std::string& xlabel, const std::string& ylabel,
                    const std::vector<Series>& series,
                    const std::vector<std::pair<std::string, double>>& targets,
                    std::optional<double> answer_x) {
  Figure f;
  f.file = file;
  double lo = 1e300, hi = 0, xmin = 1e300, xmax = -1e300;
  for (const Series& s : series) {
    for (const auto& p : s.points) {
      if (p[1] > 0) lo = std::min(lo, p[1]);
      hi = std::max(hi, p[3]);
      xmin = std::min(xmin, p[0]);
      xmax = std::max(xmax, p[0]);
    }
    for (const auto& p : s.stopped) {
      if (p[1] > 0) lo = std::min(lo, p[1]);
      hi = std::max(hi, p[1]);
      xmin = std::min(xmin, p[0]);
      xmax = std::max(xmax, p[0]);
    }
  }
  for (const auto& [name, v] : targets) {
    if (v > 0) lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  const bool log = lo < 1e300 && hi > 0 && hi / lo > 50;
  const double floor = log ? lo / 2 : 0;
  std::ostringstream s;
  s << "set xlabel " << gp_string(xlabel) << "\nset ylabel "
    << gp_string(ylabel + (log ? ", log scale" : "")) << "\n"
    << "set key below horizontal\nset grid\nset style fill transparent solid 0.2 noborder\n";
  if (log) s << "set logscale y\n";
  if (xmin <= xmax) s << "set xrange [" << num(xmin - 0.5) << ":" << num(xmax + 0.5) << "]\n";
  if (!log) s << "set yrange [0:*]\nset offsets 0, 0, graph 0.08, 0\n";
  std::vector<std::string> plots;
  bool titled_stop = false;
  for (std::size_t i = 0; i < series.size(); ++i) {
    std::ostringstream data;
    for (const auto& p : series[i].points) {
      data << num(p[0], 6) << "\t" << num(std::max(floor, p[1]), 6) << "\t"
           << num(std::max(floor, p[2]), 6) << "\t" << num(std::max(floor, p[3]), 6) << "\n";
    }
    const std::string name = file + "-series" + std::to_string(i) + ".tsv";
    f.data[name] = data.str();
    const std::string colour = kColours[i % 8];
    plots.push_back(gp_string(name) + " using 1:3:4 with filledcurves lc rgb '" + colour +
                    "' notitle");
    // Series that coincide (two alternatives the scheduler treats alike) stay apart by dash and
    // point.
    const int points[] = {7, 5, 9, 11};
    plots.push_back(gp_string(name) + " using 1:2 with linespoints lw 2 dt " +
                    std::to_string(i % 4 + 1) + " pt " + std::to_string(points[i % 4]) +
                    " ps 1.2 lc rgb '" + colour + "' title " + gp_string(series[i].title));
    if (!series[i].stopped.empty()) {
      std::ostringstream more;
      for (const auto& p : series[i].stopped)
        more << num(p[0], 6) << "\t" << num(std::max(floor, p[1]), 6) << "\n";
      const std::string stopped = file + "-stopped" + std::to_string(i) + ".tsv";
      f.data[stopped] = more.str();
      plots.push_back(
          gp_string(stopped) + " using 1:2 with points pt 6 ps 1.5 lw 2 lc rgb '" + colour + "' " +
          (titled_stop ? "notitle" : "title 'open circle: stopped early (value so far)'"));
      titled_stop = true;
    }
  }
  for (std::size_t i = 0; i < targets.size(); ++i) {
    plots.push_back(num(std::max(floor, targets[i].second), 6) +
                    " with lines dt 2 lw 2 lc rgb '#000000' title " + gp_string(targets[i].first));
  }
  if (answer_x) {
    s << "set arrow from " << num(*answer_x, 6) << ", graph 0 to " << num(*answer_x, 6)
      << ", graph 1 nohead lw 2 lc rgb '#555555' dt 3\nset label 'answer' at " << num(*answer_x, 6)
      << ", graph 0.95 offset 0.5,0\n";
  }
  s << "plot " << (plots.empty() ? "NaN notitle" : "");
  for (std::size_t i = 0; i < plots.size(); ++i) s << (i ? ", \\\n     " : "") << plots[i];
  s << "\n";
  f.script = s.str();
  return f;
}

// Bars per queue: each value's mean with an error bar up to its upper bound.
Figure bars_figure(
    const std::string& file, const std::string& ylabel, const std::vector<std::string>& columns,
    const std::vector<std::pair<std::string, std::vector<std::pair<double, double>>>>& rows,
    const std::vector<std::pair<std::string, double>>& targets) {
  Figure f;
  f.file = file;
  std::ostringstream data;
  for (const auto& [queue, values] : rows) {
    data << queue;
    for (const auto& [mean, upper] : values)
      data << "\t" << num(mean, 6) << "\t" << num(std::max(0.0, upper - mean), 6);
    data << "\n";
  }
  const std::string bars = file + "-bars.tsv";
  f.data[bars] = data.str();
  std::ostringstream s;
  s << "set ylabel " << gp_string(ylabel) << "\nset xlabel 'queue'\nset key below\nset grid ytics\n"
    << "set offsets 0, 0, graph 0.08, 0\n"
    << "set style data histogram\nset style histogram errorbars gap 2 lw 1\nset style fill solid "
       "0.6 border -1\n"
    << "set yrange [0:*]\nset boxwidth 0.9\n";
  std::vector<std::string> plots;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    plots.push_back(gp_string(bars) + " using " + std::to_string(2 + 2 * c) + ":" +
                    std::to_string(3 + 2 * c) + (c == 0 ? ":xtic(1)" : "") + " title " +
                    gp_string(columns[c]) + " lc rgb '" + kColours[c % 8] + "'");
  }
  for (const auto& [name, v] : targets) {
    plots.push_back(num(v, 6) + " with lines dt 2 lw 2 lc rgb '#000000' title " + gp_string(name));
  }
  s << "plot ";
  for (std::size_t i = 0; i < plots.size(); ++i) s << (i ? ", \\\n     " : "") << plots[i];
  s << "\n";
  f.script = s.str();
  return f;
}

Interval over_seeds(const PlanSpec& plan, const Judgement& j, Metric m, const std::string& queue) {
  Target t;
  t.metric = m;
  std::vector<double> v;
  for (const SeedMeasure& x : j.measures) v.push_back(metric_value(x, t, queue));
  return t_interval(v, plan.confidence);
}

std::string question_text(const PlanSpec& p) {
  switch (p.question) {
    case Question::CHECK:
      return "Does the configuration as given meet the targets?";
    case Question::GPUS: {
      std::string pools;
      for (const std::string& s : p.gpus->pools) pools += (pools.empty() ? "" : ", ") + s;
      return "The fewest nodes of " + pools +
             (p.gpus->scaled ? " (percent of their base counts, " : " (") + num(p.gpus->count.min) +
             " to " + num(p.gpus->count.max) + ") that meet every target.";
    }
    case Question::QUOTAS:
      return "Queue quotas, limits and weights that meet every target, and the Pareto front of the "
             "candidates judged.";
    case Question::HARDWARE:
      return "Which hardware alternative meets the targets, with how many GPUs, at what cost.";
  }
  return "";
}

}  // namespace

std::map<std::string, std::string> report_files(const PlanOutcome& o, Diagnostics& diagnostics) {
  const PlanSpec& plan = o.plan;
  const Answer& a = o.answer;
  const BaseScenario& base = o.planner.base();
  std::vector<Block> doc;
  std::vector<Figure> figures;
  if (!plan.description.empty()) doc.push_back({Block::PARAGRAPH, plan.description, {}, ""});
  doc.push_back({Block::PARAGRAPH, "Question: " + question_text(plan), {}, ""});
  std::string answer =
      a.chosen == nullptr ? "nothing judged" : o.planner.describe(a.chosen->candidate);
  std::string verdict = a.found && a.recheck_holds
                            ? "meets every target on the seeds and on the fresh seeds"
                        : a.found ? "meets every target on the seeds, but not on the fresh seeds"
                                  : "no candidate meets every target; closest";
  if (a.found && o.planner.seeds(SeedSet::FRESH).empty())
    verdict = "meets every target on the seeds";
  doc.push_back({Block::PARAGRAPH, "Answer: " + answer + " (" + verdict + ").", {}, ""});
  doc.push_back(
      {Block::PARAGRAPH,
       "Seeds " + seed_list(o.planner.seeds(SeedSet::MAIN)) + ", fresh seeds " +
           seed_list(o.planner.seeds(SeedSet::FRESH)) + ". A target holds when its one-sided " +
           num(plan.confidence * 100, 1) +
           "% Student t bound over the seeds (mean + t * s / sqrt(n)) meets it." +
           (plan.warmup_ms > 0 ? " Pods submitted in the first " +
                                     seconds_text(static_cast<double>(plan.warmup_ms) / 1000.0) +
                                     " (warm-up) count in no measure."
                               : ""),
       {},
       ""});
  for (const std::string& n : a.notes)
    doc.push_back({Block::PARAGRAPH, "Note: " + n + ".", {}, ""});

  if (a.chosen != nullptr) {
    doc.push_back({Block::HEADING, "Targets (the answer, on the seeds)", {}, ""});
    Block t{
        Block::TABLE, "", {{"target", "queue", "mean", "bound (one-sided)", "limit", "holds"}}, ""};
    for (const Check& c : a.chosen->checks) {
      const Target& target = plan.targets[c.target];
      t.rows.push_back({target_text(target), c.queue, value_text(target.metric, c.interval.mean),
                        value_text(target.metric, c.deciding()),
                        value_text(target.metric, target.bound), c.holds ? "yes" : "NO"});
    }
    doc.push_back(t);
  }
  auto failure_blocks = [&](const std::vector<Failure>& failures, const std::string& heading) {
    if (failures.empty()) return;
    doc.push_back({Block::HEADING, heading, {}, ""});
    for (const Failure& f : failures) {
      std::string reasons;
      for (const Reason& r : f.reasons)
        reasons += (reasons.empty() ? "" : ", ") + r.reason + " " + num(r.share * 100, 0) + "%";
      doc.push_back({Block::PARAGRAPH,
                     f.target + ": bound " +
                         value_text(plan.targets[f.check->target].metric, f.check->deciding()) +
                         "; seeds that miss it: " + seed_list(f.seeds) + "; pods waited for: " +
                         (reasons.empty() ? "no pending reason recorded" : reasons) + ". " +
                         f.advice + ".",
                     {},
                     ""});
    }
  };
  failure_blocks(o.failures, "Why targets fail");
  failure_blocks(o.fresh_failures, "Why targets fail on the fresh seeds");

  if (a.question == Question::HARDWARE) {
    doc.push_back({Block::HEADING, "Hardware alternatives", {}, ""});
    Block t{Block::TABLE,
            "",
            {{"alternative", "meets targets", "nodes", "GPUs (as KAI counts)", "GPU devices",
              "price per GPU-hour", "cost per hour"}},
            ""};
    for (const HardwareRow& r : a.hardware) {
      t.rows.push_back({r.name, r.meets ? "yes" : "no", std::to_string(r.nodes), gpus_text(r.gpus),
                        std::to_string(r.devices),
                        r.price_per_gpu_hour ? num(*r.price_per_gpu_hour, 2) : "-",
                        r.price_per_gpu_hour ? num(*r.price_per_gpu_hour * r.devices, 2) : "-"});
    }
    doc.push_back(t);
  }

  // Figures.
  const std::optional<Metric> metric = curve_metric(plan);
  if (metric && (a.question == Question::GPUS || a.question == Question::HARDWARE)) {
    std::vector<Series> series;
    std::vector<std::pair<std::string, double>> targets;
    std::set<double> bounds;
    for (const Target& t : plan.targets) {
      if (t.metric == *metric && bounds.insert(t.bound).second)
        targets.push_back({"target " + target_text(t), t.bound});
    }
    if (a.question == Question::GPUS) {
      std::map<std::string, Series> by_queue;
      for (const Judgement* j : a.curve) {
        for (const Check& c : j->checks) {
          if (plan.targets[c.target].metric != *metric) continue;
          Series& s = by_queue[c.queue];
          s.title = c.queue;
          if (j->stopped_by.empty()) {
            s.points.push_back(
                {base.gpus_of(j->candidate), c.interval.mean, c.interval.lower, c.interval.upper});
          } else {
            s.stopped.push_back({base.gpus_of(j->candidate), c.interval.mean});
          }
        }
      }
      for (auto& [q, s] : by_queue) series.push_back(std::move(s));
    } else {
      for (const HardwareRow& r : a.hardware) {
        Series s;
        s.title = r.name + " (worst queue)";
        for (const Judgement* j : r.curve) {
          const Check* worst = nullptr;
          for (const Check& c : j->checks) {
            if (plan.targets[c.target].metric == *metric &&
                (worst == nullptr || c.interval.upper > worst->interval.upper))
              worst = &c;
          }
          if (worst == nullptr) continue;
          if (j->stopped_by.empty()) {
            s.points.push_back({static_cast<double>(base.devices_of(j->candidate)),
                                worst->interval.mean, worst->interval.lower,
                                worst->interval.upper});
          } else {
            s.stopped.push_back(
                {static_cast<double>(base.devices_of(j->candidate)), worst->interval.mean});
          }
        }
        series.push_back(std::move(s));
      }
    }
    for (Series& s : series) {
      std::sort(s.points.begin(), s.points.end());
      std::sort(s.stopped.begin(), s.stopped.end());
    }
    std::optional<double> answer_x;
    if (a.found && a.chosen != nullptr) {
      answer_x = a.question == Question::GPUS ? base.gpus_of(a.chosen->candidate)
                                              : base.devices_of(a.chosen->candidate);
    }
    figures.push_back(curve_figure(
        "gpus.svg",
        a.question == Question::GPUS ? "GPUs in the cluster (count)" : "GPU devices (count)",
        axis_label(*metric), series, targets, answer_x));
    doc.push_back({Block::FIGURE,
                   axis_label(*metric) +
                       " against GPUs: mean over the seeds, the band between the one-sided " +
                       num(plan.confidence * 100, 1) +
                       "% bounds, and the target (dashed). Open circles: every seed's replay "
                       "stopped as soon as a target "
                       "was missed for certain, so the value covers the run up to then",
                   {},
                   "gpus.svg"});
  }
  if (a.question == Question::QUOTAS) {
    std::ostringstream feasible, infeasible, front, chosen;
    double xmax = 0;
    auto point = [&](const Judgement& j, std::ostringstream& out) {
      double worst = 0;
      for (const Check& c : j.checks) {
        const Metric m = plan.targets[c.target].metric;
        if (m == Metric::WAIT_P95 || m == Metric::WAIT_MAX || m == Metric::WAIT_MEAN)
          worst = std::max(worst, c.interval.upper);
      }
      double ev = 0;
      for (const SeedMeasure& m : j.measures) ev += m.cluster.evictions;
      ev /= static_cast<double>(std::max<std::size_t>(1, j.measures.size()));
      xmax = std::max(xmax, worst);
      out << num(worst, 6) << "\t" << num(ev, 6) << "\n";
    };
    for (const Entry& e : o.planner.entries()) {
      if (e.seeds == SeedSet::MAIN)
        point(e.judgement, e.judgement.feasible ? feasible : infeasible);
    }
    for (const Judgement* j : a.pareto) point(*j, front);
    if (a.chosen != nullptr) point(*a.chosen, chosen);
    Figure f;
    f.file = "pareto.svg";
    // gnuplot needs a point in each file it plots; an empty set is a point it never draws.
    auto text = [](const std::ostringstream& s) {
      return s.str().empty() ? std::string("NaN\tNaN\n") : s.str();
    };
    f.data = {{"pareto-feasible.tsv", text(feasible)},
              {"pareto-infeasible.tsv", text(infeasible)},
              {"pareto-front.tsv", text(front)},
              {"pareto-answer.tsv", text(chosen)}};
    double tightest = 0;
    for (const Target& t : plan.targets) {
      if ((t.metric == Metric::WAIT_P95 || t.metric == Metric::WAIT_MAX ||
           t.metric == Metric::WAIT_MEAN) &&
          t.bound > 0) {
        tightest = tightest == 0 ? t.bound : std::min(tightest, t.bound);
      }
    }
    std::ostringstream s;
    s << "set xlabel 'worst queue wait, one-sided upper bound (s)'\nset ylabel 'evictions per run "
         "(pods, mean over seeds)'\n"
      << "set key below horizontal\nset grid\nset yrange [0:*]\nset xrange [0:"
      << num(std::max(xmax, tightest) * 1.1 + 1, 3) << "]\nset offsets 0, 0, graph 0.08, 0\n";
    if (tightest > 0) {
      s << "set arrow from " << num(tightest, 6) << ", graph 0 to " << num(tightest, 6)
        << ", graph 1 nohead dt 2 lw 2\n"
        << "set label 'tightest wait target' at " << num(tightest, 6)
        << ", graph 0.95 right offset -0.5,0\n";
    }
    s << "plot 'pareto-infeasible.tsv' using 1:2 with points pt 2 ps 1 lc rgb '#999999' title "
         "'misses a target', \\\n"
      << "     'pareto-feasible.tsv' using 1:2 with points pt 7 ps 0.9 lc rgb '#999999' title "
         "'meets every target', \\\n"
      << "     'pareto-front.tsv' using 1:2 with points pt 6 ps 2 lw 2 lc rgb '#1f77b4' title "
         "'Pareto front', \\\n"
      << "     'pareto-answer.tsv' using 1:2 with points pt 3 ps 3 lw 3 lc rgb '#d62728' title "
         "'answer'\n";
    f.script = s.str();
    figures.push_back(f);
    doc.push_back({Block::FIGURE,
                   "The quota candidates judged: the worst queue's wait bound against evictions. "
                   "The Pareto front (blue rings) "
                   "weighs each queue's wait bound, evictions and utilization at once, so a ring "
                   "can sit behind another point "
                   "in these two measures; plan.json lists every objective",
                   {},
                   "pareto.svg"});
  }
  if (a.chosen != nullptr) {
    std::vector<std::pair<std::string, std::vector<std::pair<double, double>>>> waits, reclaim;
    for (const std::string& q : base.leaf_queues()) {
      const Interval p95 = over_seeds(plan, *a.chosen, Metric::WAIT_P95, q);
      const Interval max = over_seeds(plan, *a.chosen, Metric::WAIT_MAX, q);
      const Interval mean = over_seeds(plan, *a.chosen, Metric::WAIT_MEAN, q);
      waits.push_back({q, {{mean.mean, mean.upper}, {p95.mean, p95.upper}, {max.mean, max.upper}}});
      const Interval r = over_seeds(plan, *a.chosen, Metric::RECLAIM_LATENCY_MAX, q);
      reclaim.push_back({q, {{r.mean, r.upper}}});
    }
    std::vector<std::pair<std::string, double>> wait_targets, reclaim_targets;
    std::set<double> seen_w, seen_r;
    for (const Target& t : plan.targets) {
      if (t.metric == Metric::WAIT_P95 && seen_w.insert(t.bound).second)
        wait_targets.push_back({"target " + target_text(t), t.bound});
      if (t.metric == Metric::RECLAIM_LATENCY_MAX && seen_r.insert(t.bound).second) {
        reclaim_targets.push_back({"target " + target_text(t), t.bound});
      }
    }
    figures.push_back(bars_figure("waits.svg", "wait from submit to bind (s)",
                                  {"mean", "p95", "max"}, waits, wait_targets));
    doc.push_back({Block::FIGURE,
                   "Waits per team with the answer: means over the seeds, error bars up to the "
                   "one-sided bound",
                   {},
                   "waits.svg"});
    figures.push_back(bars_figure("reclaim.svg", "longest reclaim latency (s)",
                                  {"reclaim latency max"}, reclaim, reclaim_targets));
    doc.push_back({Block::FIGURE,
                   "Reclaim latency per team with the answer: the longest time a queue asked for "
                   "GPUs of its quota without "
                   "holding them; mean over the seeds, error bar up to the one-sided bound",
                   {},
                   "reclaim.svg"});
  }

  doc.push_back({Block::HEADING, "Candidates judged", {}, ""});
  Block candidates{Block::TABLE,
                   "",
                   {{"#", "role", "seeds", "candidate", "meets targets", "worst bound / target",
                     "GPU utilization", "evictions"}},
                   ""};
  for (const Entry& e : o.planner.entries()) {
    const Judgement& j = e.judgement;
    const Interval util = over_seeds(plan, j, Metric::UTILIZATION_MIN, "cluster");
    const Interval ev = over_seeds(plan, j, Metric::EVICTIONS_MAX, "cluster");
    candidates.rows.push_back(
        {std::to_string(o.ids.at(&j)), e.role, e.seeds == SeedSet::MAIN ? "main" : "fresh",
         o.planner.describe(j.candidate),
         j.feasible             ? "yes"
         : j.stopped_by.empty() ? "no"
                                : "no (stopped early: a target missed on every seed)",
         num(j.worst_ratio), num(util.mean), num(ev.mean, 1)});
  }
  doc.push_back(candidates);

  if (a.chosen != nullptr && !a.chosen->measures.empty() &&
      !a.chosen->measures.front().status.empty()) {
    doc.push_back({Block::HEADING,
                   "Queue.status the answer predicts (seed " +
                       std::to_string(a.chosen->measures.front().seed) + ")",
                   {},
                   ""});
    Block t{Block::TABLE,
            "",
            {{"time", "queue", "allocated GPU", "allocatedNonPreemptible GPU", "requested GPU"}},
            ""};
    for (const StatusSample& s : a.chosen->measures.front().status) {
      for (const auto& [q, st] : s.queues) {
        t.rows.push_back({seconds_text(static_cast<double>(s.at_ms) / 1000.0), q,
                          num(st.allocated[2]), num(st.allocated_non_preemptible[2]),
                          num(st.requested[2])});
      }
    }
    doc.push_back(t);
  }
  doc.push_back({Block::HEADING, "Manifests", {}, ""});
  std::string files;
  for (const auto& [name, text] : o.manifests) files += (files.empty() ? "" : ", ") + name;
  doc.push_back({Block::PARAGRAPH,
                 "Apply to the host cluster: " + files + " (plan.json holds every number above).",
                 {},
                 ""});

  std::map<std::string, std::string> out;
  std::string why;
  std::optional<std::map<std::string, std::string>> svgs = draw(figures, why);
  if (!svgs) {
    diagnostics.warnings.push_back("report figures left out: " + why);
    doc.push_back({Block::PARAGRAPH, "The figures are left out: " + why + ".", {}, ""});
    svgs.emplace();
  }
  for (const auto& [name, svg] : *svgs) out[name] = svg;
  const std::string title = "kaisim plan: " + plan.name;
  out["report.md"] = render_md(title, doc, !svgs->empty());
  out["report.html"] = render_html(title, doc, *svgs);
  return out;
}

}  // namespace sim::plan
