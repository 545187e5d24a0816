#include "gpu_request_rules.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <regex>

namespace sim::io {
namespace {

// strconv.ParseUint(s, 10, 64): decimal digits only, within 64 bits.
bool parse_uint(const std::string& s, unsigned long long& out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  out = std::strtoull(s.c_str(), nullptr, 10);
  return errno != ERANGE;
}

// strconv.ParseFloat and resource.ParseQuantity both accept it: a plain decimal number with an
// optional exponent (ParseFloat's NaN, Inf and hex forms are not quantities; a quantity's
// suffixes other than the exponent are not floats).
bool parse_fraction(const std::string& s, double& out) {
  static const std::regex kForm(R"([+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)");
  if (!std::regex_match(s, kForm)) return false;
  errno = 0;
  out = std::strtod(s.c_str(), nullptr);
  return errno != ERANGE && std::isfinite(out);
}

bool has_whole_gpu_limit(const Field& spec) {
  for (const char* list : {"containers", "initContainers"}) {
    const Field containers = spec.member(list);
    if (!containers.is_sequence()) continue;
    for (const Field& c : containers.items()) {
      if (!c.member("resources").member("limits").member("nvidia.com/gpu").is_null()) return true;
    }
  }
  return false;
}

}  // namespace

// KAI: pkg/binder/plugins/gpusharing/gpu-request/gpu_request_validator.go (ValidateGpuRequests),
// run by pkg/admission/webhook/v1alpha2/gpusharing for pods of the KAI scheduler.
void check_gpu_request(const Field& pod) {
  const Field annotations = pod.member("metadata").member("annotations");
  if (!annotations.is_map()) return;
  const Field fraction = annotations.member("gpu-fraction");
  const Field memory = annotations.member("gpu-memory");
  const Field count = annotations.member("gpu-fraction-num-devices");
  const Field mps = annotations.member("mps");
  const bool has_fraction = !fraction.is_null(), has_memory = !memory.is_null(),
             has_count = !count.is_null();
  const bool whole = has_whole_gpu_limit(pod.member("spec"));
  if (!has_fraction && !has_memory && mps.scalar() == "true") {
    mps.fail("MPS is only supported with GPU fraction request (KAI's admission refuses the pod)");
  }
  if (has_fraction && whole) {
    fraction.fail(
        "cannot have both GPU fraction request and whole GPU resource request/limit (KAI's "
        "admission refuses the pod)");
  }
  if (has_memory && (has_fraction || whole))
    memory.fail("cannot request both GPU and GPU memory (KAI's admission refuses the pod)");
  if (has_count && !has_fraction && !has_memory) {
    count.fail(
        "cannot request multiple fractional devices without specifying fraction portion or "
        "gpu-memory "
        "(KAI's admission refuses the pod)");
  }
  unsigned long long n = 0;
  if (has_memory && (!parse_uint(memory.scalar(), n) || n == 0)) {
    memory.fail(
        "gpu-memory annotation value must be a positive integer greater than 0 (MiB), got " +
        memory.describe());
  }
  double f = 0;
  if (has_fraction && (!parse_fraction(fraction.scalar(), f) || !(f > 0 && f < 1))) {
    fraction.fail("gpu-fraction annotation value must be a positive number smaller than 1.0, got " +
                  fraction.describe());
  }
  if (has_count && (!parse_uint(count.scalar(), n) || n == 0)) {
    count.fail("fraction count annotation value must be a positive integer greater than 0, got " +
               count.describe());
  }
}

}  // namespace sim::io
