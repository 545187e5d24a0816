#pragma once
// The Node manifest the scheduling tests build their clusters from: 8 GPUs of 46,068 MiB (an
// L40S's memory), 64 CPUs, 512 GiB, 110 pods.

#include <string>

namespace sim::test {

inline std::string gpu_node_manifest(const std::string& name) {
  return "apiVersion: v1\nkind: Node\nmetadata: {name: " + name +
         ", labels: {nvidia.com/gpu.memory: \"46068\", nvidia.com/gpu.count: \"8\"}}\n"
         "status: {allocatable: {cpu: \"64\", memory: 512Gi, pods: \"110\", nvidia.com/gpu: "
         "\"8\"}}\n---\n";
}

}  // namespace sim::test
