#pragma once
// Private: scenario sections that expand into plain manifests before the replay starts, so the
// engine only ever sees Kubernetes objects: compact node pools and workload generators.

#include <cstddef>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "io/yaml_field.hpp"
#include "scenario.hpp"

namespace sim::replay {

/// Uniform in [0, 1) from the top 53 bits: the same on every platform, unlike
/// std::uniform_real_distribution whose algorithm the standard leaves open.
double uniform(std::mt19937_64& rng);
/// An index drawn with the given weights (one uniform draw).
template <std::size_t N>
std::size_t pick(std::mt19937_64& rng, const double (&weights)[N]) {
  double total = 0;
  for (double w : weights) total += w;
  double x = uniform(rng) * total;
  std::size_t k = 0;
  while (k + 1 < N && x >= weights[k]) x -= weights[k++];
  return k;
}

/// The Pod manifest of `shape` (schedulerName kai-scheduler, queue label, no PodGroup).
YAML::Node bare_pod_manifest(const PodShape& shape);
/// The annotations that manifest holds, in its order.
std::vector<std::pair<std::string, std::string>> bare_pod_annotations(const PodShape& shape);
/// The MIG resource of its limit ("nvidia.com/mig-<profile>"), or empty.
std::string mig_resource(const PodShape& shape);
/// The GPUs it requests for events: its fraction, else its devices plus its MIG instances counted
/// as KAI's quota counts them (a "3g.*" instance is 3 GPUs).
double shape_gpus(const PodShape& shape);

/// `cluster.nodePools[]` -> one Node manifest per node, named `<pool>-<i>`.
std::vector<Manifest> expand_node_pools(const io::Field& pools, const std::string& file,
                                        Diagnostics& diagnostics);

/// `generators[]` -> timed steps that apply generated bare pods (Poisson arrivals, a weighted size
/// mix, a runtime distribution). Draws come from one mt19937_64 per generator seeded from the
/// scenario seed and the generator's index, so the same scenario gives the same pods anywhere.
/// A generator's queue must be one of `queues` (the scenario's Queues).
void expand_generators(const io::Field& generators, std::uint64_t seed, std::int64_t duration_ms,
                       const std::set<std::string>& queues, const std::string& file,
                       std::vector<Step>& steps, Diagnostics& diagnostics);

/// The pod annotation that gives a pod's run time (Go duration); a running pod completes after it.
inline constexpr const char* kRuntimeAnnotation = "kaisim/runtime";

}  // namespace sim::replay
