#pragma once
// Private: the typed reading of a bare KAI pod a replay generates (and of the PodGroup the
// pod-grouper makes for it), made from its fields rather than from its manifest's text, so a
// generated pod's GPU request reaches its Task as the number it was drawn as.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "parsed_objects.hpp"

namespace sim::io {

/// A generated pod as its manifest holds it: one container, requests and limits as below.
struct BarePod {
  std::string name, ns, uid, priority_class;  ///< priority_class: spec.priorityClassName
  std::int64_t created_ns = 0;                ///< its creationTimestamp (whole seconds)
  model::Labels labels, annotations;          ///< as the manifest holds them
  int gpus = 0;                               ///< nvidia.com/gpu limit; 0: none
  double gpu_fraction = 0;                    ///< the gpu-fraction annotation's value; 0: none
  int gpu_memory_mib = 0;                     ///< the gpu-memory annotation's value; 0: none
  std::string mig_resource;                   ///< e.g. "nvidia.com/mig-1g.10gb"; empty: none
  int mig_instances = 0;                      ///< its limit
  std::string cpu, memory;                    ///< requests as quantities; empty: none
};

/// The PodGroup the pod-grouper made for it.
struct BareGroup {
  std::string name, queue, priority_class, preemptibility;
};

/// The readings parse_objects would make of the pod's manifest (`pod_doc`) and of its PodGroup's
/// (`group_doc`); both keep their document for positions. Nothing when the manifest's own checks
/// must speak (a quantity that is not one, a GPU request KAI's admission refuses): parse it then.
std::optional<std::pair<std::shared_ptr<const ParsedObjects>, std::shared_ptr<const ParsedObjects>>>
read_bare_pod(const BarePod& pod, const Field& pod_doc, const BareGroup& group,
              const Field& group_doc);

/// Whether two readings of a pod (or of a PodGroup) agree in every field a cycle reads: the Debug
/// proof that a reading made without parsing is the one parsing makes.
bool same_pod_reading(const PodObject& a, const PodObject& b);
bool same_group_reading(const PodGroupObject& a, const PodGroupObject& b);

}  // namespace sim::io
