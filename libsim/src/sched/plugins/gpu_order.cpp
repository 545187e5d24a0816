// The gpupack and gpuspread plugins (plugins/gpupack, plugins/gpuspread): the order of the GPUs a
// fraction may share on a node. gpupack prefers the fullest shared GPU (its used portion), a new
// whole GPU last (0); gpuspread the emptiest (1 - used portion), a new whole GPU first (1).

#include "builders.hpp"
#include "sim/sched/framework/node_fit.hpp"

namespace sim::sched::plugins {
namespace {

// GetUsedGpuPortion: fails on a node whose GPU memory is unknown or below the 100 MiB default.
std::optional<double> used_portion(const model::Node& node, const std::string& gpu) {
  if (node.gpu_memory_mib < model::kDefaultGpuMemoryMib || node.gpu_memory_mib == 0)
    return std::nullopt;
  auto used = node.used_shared_mib.find(gpu);
  const double mib = used == node.used_shared_mib.end() ? 0 : static_cast<double>(used->second);
  return mib / static_cast<double>(node.gpu_memory_mib);
}

class GpuOrder final : public Plugin {
 public:
  explicit GpuOrder(bool pack) : pack_(pack) {}
  std::string_view name() const override { return pack_ ? "gpupack" : "gpuspread"; }
  void on_session_open(Session& ssn) override {
    ssn.hooks.gpu_order.push_back([pack = pack_](const model::Node& node, const model::Task&,
                                                 const std::string& gpu) -> std::optional<double> {
      if (gpu == kWholeGpu) return pack ? 0.0 : 1.0;
      const std::optional<double> portion = used_portion(node, gpu);
      if (!portion) return std::nullopt;
      return pack ? *portion : 1 - *portion;
    });
  }

 private:
  bool pack_;
};

}  // namespace

std::unique_ptr<Plugin> make_gpupack(const model::PluginOption&) {
  return std::make_unique<GpuOrder>(true);
}
std::unique_ptr<Plugin> make_gpuspread(const model::PluginOption&) {
  return std::make_unique<GpuOrder>(false);
}

}  // namespace sim::sched::plugins
