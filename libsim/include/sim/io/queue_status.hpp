#pragma once
// Queue.status amounts: exact sums of Kubernetes quantities by resource name, as KAI's
// podgroup-controller and queue-controller add them (src/io/pod_status.hpp counts the pods).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace sim::io {

__extension__ typedef __int128 NanoAmount;  ///< a quantity in billionths of its unit, exactly

/// Sums of Kubernetes quantities by resource name ("cpu", "memory", "nvidia.com/gpu", ...), exact
/// as resource.Quantity adds. A missing name is zero.
class ResourceAmounts {
 public:
  void add(const std::string& resource, NanoAmount nano);
  void add(const ResourceAmounts& other);
  void subtract(const ResourceAmounts& other);
  NanoAmount get(const std::string& resource) const;
  /// Equal in every resource (missing counts as zero).
  bool operator==(const ResourceAmounts& other) const;
  const std::map<std::string, NanoAmount>& entries() const { return nano_; }
  bool empty() const;

 private:
  std::map<std::string, NanoAmount> nano_;
};

/// A quantity text ("330m", "1Gi", "2") in nano units, rounded up below a nano; nullopt when it is
/// not a quantity or too large (beyond 1e20 units).
std::optional<NanoAmount> parse_nano_quantity(std::string_view text);
/// Canonical DecimalSI text of an amount, as Kubernetes prints a DecimalSI quantity: "330m", "2",
/// "1500m", "256M", "0"; sub-milli amounts keep "u"/"n".
std::string format_nano_quantity(NanoAmount nano);
/// The amount as a double in its unit (0.33 for "330m"), for tables and plots.
double nano_to_double(NanoAmount nano);

/// One queue's status fields.
struct QueueStatus {
  ResourceAmounts allocated;
  ResourceAmounts allocated_non_preemptible;
  ResourceAmounts requested;
  bool operator==(const QueueStatus& other) const = default;
};

}  // namespace sim::io
