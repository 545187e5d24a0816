// The taskorder plugin (plugins/taskorder/task_order.go): pods with a `kai.scheduler/task-priority`
// label first, higher priority first.

#include "builders.hpp"

namespace sim::sched::plugins {
namespace {

class TaskOrder final : public Plugin {
 public:
  std::string_view name() const override { return "taskorder"; }
  void on_session_open(Session& ssn) override {
    ssn.hooks.task_order.push_back([](const model::Task& a, const model::Task& b) {
      if (a.has_task_priority != b.has_task_priority) return a.has_task_priority ? -1 : 1;
      if (!a.has_task_priority || a.task_priority == b.task_priority) return 0;
      return a.task_priority > b.task_priority ? -1 : 1;
    });
  }
};

class NoOp final : public Plugin {
 public:
  explicit NoOp(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  void on_session_open(Session&) override {}

 private:
  std::string name_;
};

}  // namespace

std::unique_ptr<Plugin> make_taskorder(const model::PluginOption&) {
  return std::make_unique<TaskOrder>();
}

// subgrouporder (plugins/subgrouporder): its rule, the order of a set's members by how far each
// is from its minimum, is applied by the gang walks themselves (framework/gang.cpp subgroup_order).
std::unique_ptr<Plugin> make_subgrouporder(const model::PluginOption& o) {
  return std::make_unique<NoOp>(o.name);
}
std::unique_ptr<Plugin> make_no_op(const model::PluginOption& o) {
  return std::make_unique<NoOp>(o.name);
}

}  // namespace sim::sched::plugins
