// The elastic plugin (plugins/elastic/elastic.go): a job below its minimum first, then one exactly
// at it, then one above it.

#include "builders.hpp"
#include "sim/sched/framework/gang.hpp"

namespace sim::sched::plugins {
namespace {

class Elastic final : public Plugin {
 public:
  std::string_view name() const override { return "elastic"; }
  void on_session_open(Session& ssn) override {
    ssn.hooks.job_order.push_back([](const Session& s, const model::Job&, const JobView& view) {
      return static_cast<std::int64_t>(min_available_state(s, view));
    });
  }
};

}  // namespace

std::unique_ptr<Plugin> make_elastic(const model::PluginOption&) {
  return std::make_unique<Elastic>();
}

}  // namespace sim::sched::plugins
