#pragma once
// How kaisim reaches a live Kubernetes API server: the kubeconfig as kubectl reads it, timeouts,
// and retries within a deadline. Credentials are held only in memory and never printed or logged.

#include <functional>
#include <string>

#include "sim/core/error.hpp"

namespace sim::live {

struct ConnectionOptions {
  /// A kubeconfig file; empty: $KUBECONFIG (files separated by ':', merged as kubectl merges
  /// them), else ~/.kube/config.
  std::string kubeconfig;
  /// The context to use; empty: the kubeconfig's current-context.
  std::string context;
  /// Longest wait for one HTTP request (seconds).
  double request_timeout_s = 30;
  /// Longest time for a request and its retries together (seconds): 429 and 5xx answers and
  /// broken connections are retried with backoff (honouring Retry-After) until then.
  double deadline_s = 60;
  /// Receives one line per request and per retry (method, path, status, time; never headers or
  /// credentials). Empty: silent.
  std::function<void(const std::string&)> log;
};

/// A failure talking to the cluster: unreachable, refused credentials, forbidden, conflict, or an
/// error answer. `what()` is one line naming the server, the HTTP status and the server's message.
class ClusterError : public Error {
 public:
  ClusterError(int http_status, std::string reason, const std::string& message)
      : Error(ErrorCode::IO, message), http_status_(http_status), reason_(std::move(reason)) {}
  /// 0 when no answer came (connection refused, reset, timed out).
  int http_status() const noexcept { return http_status_; }
  /// The Kubernetes Status reason ("Forbidden", "Conflict", "NotFound", ...), or empty.
  const std::string& reason() const noexcept { return reason_; }

 private:
  int http_status_;
  std::string reason_;
};

}  // namespace sim::live
