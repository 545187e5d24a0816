#pragma once
// Private: HTTPS to the Kubernetes API server with libcurl. TLS is verified unless the
// kubeconfig says insecure-skip-tls-verify; client certificates and the CA come from memory;
// bearer tokens go in a header that is never logged. Requests are retried with exponential
// backoff on 429, 5xx and broken connections until the deadline, honouring Retry-After.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

struct curl_slist;

#include "kubeconfig.hpp"
#include "sim/live/connection.hpp"

namespace sim::live {

struct HttpResponse {
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  ///< lower-case names
};

class HttpClient {
 public:
  HttpClient(ClusterAccess access, ConnectionOptions options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  /// One request with its retries. Answers other than 429/5xx come back as they are (the caller
  /// decides what a 404 or a 409 means); throws ClusterError when no answer came within the
  /// deadline or the last retried answer still failed.
  HttpResponse request(const std::string& method, const std::string& path,
                       const std::string& body = {}, const std::string& content_type = {});
  /// A streamed GET (a watch): `on_line` gets each line as it arrives and returns false to stop.
  /// Returns the HTTP status; throws ClusterError when the connection cannot be made (after
  /// retries). A connection that drops mid-stream just returns (the caller resumes).
  long stream(const std::string& path, const std::function<bool(std::string_view)>& on_line,
              double timeout_s, const std::function<bool()>& keep_going);

  /// Throws a ClusterError describing a failed answer: the Kubernetes Status message, with who
  /// was refused for 401.
  [[noreturn]] void fail(const std::string& method, const std::string& path,
                         const HttpResponse& response) const;

  const ClusterAccess& access() const { return access_; }
  const ConnectionOptions& options() const { return options_; }

 private:
  struct Curl;
  /// What one transfer's options point at, freed (and the token wiped) after it.
  struct Prepared {
    struct curl_slist* headers = nullptr;
    struct curl_slist* connect = nullptr;
    std::string auth;
    Prepared() = default;
    Prepared(Prepared&& o) noexcept
        : headers(o.headers), connect(o.connect), auth(std::move(o.auth)) {
      o.headers = o.connect = nullptr;
    }
    Prepared& operator=(Prepared&&) = delete;
    ~Prepared();
  };
  Prepared prepare(const std::string& method, const std::string& path, long timeout_ms,
                   void* transfer);
  void log(const std::string& line) const;
  void refresh_credentials(bool force);
  std::string bearer_token();
  ClusterAccess access_;
  ConnectionOptions options_;
  std::unique_ptr<Curl> curl_;
  std::string exec_token_;
  std::chrono::system_clock::time_point exec_expiry_{};
  bool exec_loaded_ = false;
};

}  // namespace sim::live
