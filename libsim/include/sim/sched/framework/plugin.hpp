#pragma once
// A scheduler plugin (KAI framework/interface.go Plugin) and the registry that builds plugins by
// name (framework/plugins.go). A plugin adds its functions to the session's hooks when a session
// opens; the framework and the actions only ever call the hooks, so they include no plugin.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/model/cluster.hpp"

namespace sim::sched {

class Session;

class Plugin {
 public:
  virtual ~Plugin() = default;
  /// The name in a scheduler configuration's plugin list ("proportion", "gpupack", ...).
  virtual std::string_view name() const = 0;
  /// OnSessionOpen: reads the session's state and adds functions to `ssn.hooks`. A plugin may
  /// keep state for the session's life; it never keeps a pointer to the session (a session may
  /// move), every hook receives it.
  virtual void on_session_open(Session& ssn) = 0;
};

/// Builds a plugin from its entry in the plugin list (name and arguments).
using PluginBuilder = std::function<std::unique_ptr<Plugin>(const model::PluginOption&)>;

class PluginRegistry {
 public:
  void add(std::string name, PluginBuilder builder) {
    builders_[std::move(name)] = std::move(builder);
  }
  /// The plugin of that entry, or nullptr for a name nobody registered (KAI logs and skips it).
  std::unique_ptr<Plugin> build(const model::PluginOption& option) const;
  /// The plugins of a list, in its order.
  std::vector<std::unique_ptr<Plugin>> build_all(
      const std::vector<model::PluginOption>& list) const;

 private:
  std::map<std::string, PluginBuilder, std::less<>> builders_;
};

}  // namespace sim::sched
