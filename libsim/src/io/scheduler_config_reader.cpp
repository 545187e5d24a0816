#include "io/scheduler_config_reader.hpp"

#include <algorithm>
#include <sstream>

namespace sim::io {
namespace {

bool read_bool(const Field& f) {
  const std::string text = f.is_scalar() ? f.scalar() : "";
  if (text != "true" && text != "false") f.fail("expected true or false, got " + f.describe());
  return text == "true";
}

// "allocate, consolidation, reclaim": the actions KAI runs, in order.
std::vector<std::string> read_actions(const Field& f) {
  static const std::vector<std::string> kKnown = {"allocate", "consolidation", "reclaim", "preempt",
                                                  "stalegangeviction"};
  std::vector<std::string> actions;
  std::stringstream list(f.string());
  for (std::string name; std::getline(list, name, ',');) {
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    if (name.empty()) continue;
    if (std::find(kKnown.begin(), kKnown.end(), name) == kKnown.end()) {
      f.fail("unknown action \"" + name +
             "\" (allocate, consolidation, reclaim, preempt, stalegangeviction)");
    }
    actions.push_back(name);
  }
  return actions;
}

std::vector<model::PluginOption> read_plugins(const Field& tiers) {
  std::vector<model::PluginOption> plugins;
  tiers.expect_sequence();
  for (std::size_t t = 0; t < tiers.size(); ++t) {
    const Field list = tiers.item(t).member("plugins");
    if (list.is_null()) continue;
    list.expect_sequence();
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Field plugin = list.item(i);
      plugin.expect_map();
      model::PluginOption option{plugin.member("name").string(), {}};
      const Field arguments = plugin.member("arguments");
      if (!arguments.is_null()) {
        arguments.expect_map();
        for (const auto& [key, value] : arguments.entries()) option.arguments[key] = value.string();
      }
      plugins.push_back(std::move(option));
    }
  }
  return plugins;
}

}  // namespace

model::SchedulerConfig read_scheduler_config(const Field& config, const Field& params) {
  model::SchedulerConfig out;
  if (!config.is_null()) {
    config.expect_map();
    if (const Field actions = config.member("actions"); !actions.is_null())
      out.actions = read_actions(actions);
    if (const Field tiers = config.member("tiers"); !tiers.is_null())
      model::apply_plugin_list(out, read_plugins(tiers));
  }
  if (!params.is_null()) {
    params.expect_map();
    if (const Field f = params.member("maxNumberConsolidationPreemptees"); !f.is_null()) {
      out.max_consolidation_preemptees =
          f.optional_int().value_or(out.max_consolidation_preemptees);
    }
    if (const Field f = params.member("allowConsolidatingReclaim"); !f.is_null())
      out.allow_consolidating_reclaim = read_bool(f);
    if (const Field f = params.member("useSchedulingSignatures"); !f.is_null())
      out.use_scheduling_signatures = read_bool(f);
    if (const Field f = params.member("fullHierarchyFairness"); !f.is_null())
      out.full_hierarchy_fairness = read_bool(f);
    if (const Field f = params.member("queueLabelKey"); !f.is_null()) {
      const std::string key = f.string();
      if (!key.empty()) out.queue_label_key = key;
    }
    if (const Field f = params.member("globalDefaultStalenessGracePeriod"); !f.is_null()) {
      out.staleness_grace_ns =
          static_cast<std::int64_t>(f.number());  // a Go time.Duration: nanoseconds
    }
  }
  return out;
}

}  // namespace sim::io
