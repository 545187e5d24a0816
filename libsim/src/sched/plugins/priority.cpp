// The priority plugin (plugins/priority/priority.go): higher PodGroup priority first.

#include "builders.hpp"
#include "sim/sched/framework/gang.hpp"

namespace sim::sched::plugins {
namespace {

class Priority final : public Plugin {
 public:
  std::string_view name() const override { return "priority"; }
  void on_session_open(Session& ssn) override {
    ssn.hooks.job_order.push_back([](const Session&, const model::Job& job, const JobView&) {
      return -static_cast<std::int64_t>(job.priority);
    });
  }
};

}  // namespace

std::unique_ptr<Plugin> make_priority(const model::PluginOption&) {
  return std::make_unique<Priority>();
}

}  // namespace sim::sched::plugins
