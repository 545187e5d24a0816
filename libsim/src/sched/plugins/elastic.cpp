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
    ssn.hooks.job_order.push_back([](const Session& s, const model::Job&, const model::Job&,
                                     const JobView& a, const JobView& b) {
      const int sa = min_available_state(s, a), sb = min_available_state(s, b);
      return sa < sb ? -1 : sa > sb ? 1 : 0;
    });
  }
};

}  // namespace

std::unique_ptr<Plugin> make_elastic(const model::PluginOption&) {
  return std::make_unique<Elastic>();
}

}  // namespace sim::sched::plugins
