#pragma once
// Private to io: what KAI's admission webhook refuses in a pod's GPU request (the gpusharing
// plugin's ValidateGpuRequests), checked where kaisim reads the pod, so a pod KAI would never
// admit is an input error with its position instead of a pod scheduled with a wrong request.

#include "yaml_field.hpp"

namespace sim::io {

/// Checks the GPU-sharing annotations (gpu-fraction, gpu-memory, gpu-fraction-num-devices, mps)
/// and whole-GPU limits of a pod that KAI schedules; throws InputError at the annotation.
void check_gpu_request(const Field& pod);

}  // namespace sim::io
