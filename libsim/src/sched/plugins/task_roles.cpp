// The kubeflow and ray plugins (plugins/kubeflow/kubeflow.go, plugins/ray/ray.go): a job's
// master or launcher pod, and a Ray cluster's head, first.

#include <string>

#include "builders.hpp"

namespace sim::sched::plugins {
namespace {

bool kubeflow_master(const model::Task& t) {
  auto it = t.labels.find("training.kubeflow.org/job-role");
  return it != t.labels.end() && (it->second == "master" || it->second == "launcher");
}

bool ray_head(const model::Task& t) {
  auto it = t.labels.find("ray.io/node-type");
  return it != t.labels.end() && it->second == "head";
}

template <bool (*Role)(const model::Task&)>
int role_first(const model::Task& a, const model::Task& b) {
  const bool ra = Role(a), rb = Role(b);
  return ra && !rb ? -1 : !ra && rb ? 1 : 0;
}

class RoleFirst final : public Plugin {
 public:
  RoleFirst(const char* name, int (*order)(const model::Task&, const model::Task&))
      : name_(name), order_(order) {}
  std::string_view name() const override { return name_; }
  void on_session_open(Session& ssn) override { ssn.hooks.task_order.push_back(order_); }

 private:
  const char* name_;
  int (*order_)(const model::Task&, const model::Task&);
};

}  // namespace

std::unique_ptr<Plugin> make_kubeflow(const model::PluginOption&) {
  return std::make_unique<RoleFirst>("kubeflow", role_first<kubeflow_master>);
}

std::unique_ptr<Plugin> make_ray(const model::PluginOption&) {
  return std::make_unique<RoleFirst>("ray", role_first<ray_head>);
}

}  // namespace sim::sched::plugins
