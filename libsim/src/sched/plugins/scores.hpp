#pragma once
// The weights of the node-order plugins (plugins/scores/scores.go): each plugin's score lands in
// its own decimal band, so a higher band always wins over every lower one.

namespace sim::sched::plugins {

inline constexpr double kNominatedNode = 1'000'000;
inline constexpr double kK8sPlugins = 100'000;
inline constexpr double kGpuSharing = 1'000;
inline constexpr double kAvailability = 100;
inline constexpr double kResourceType = 10;
inline constexpr double kMaxHighDensity = 9;

}  // namespace sim::sched::plugins
