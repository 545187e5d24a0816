#include "http_client.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <vector>

#include "curl_library.hpp"
#include "io/yaml_field.hpp"

extern char** environ;

namespace sim::live {
namespace {

using Clock = std::chrono::steady_clock;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

bool retryable_status(long status) {
  return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

// Failures that another attempt cannot fix: TLS verification, a malformed URL, a bad certificate.
bool permanent(CURLcode code) {
  switch (code) {
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
      return true;
    default:
      return false;
  }
}

// Retry-After in seconds (a number; an HTTP date is not used by the API server), or -1.
double retry_after(const std::map<std::string, std::string>& headers) {
  auto it = headers.find("retry-after");
  if (it == headers.end()) return -1;
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  if (end == it->second.c_str() || !std::isfinite(v) || v < 0) return -1;
  return std::min(v, 3600.0);
}

std::string status_text(long status) {
  switch (status) {
    case 400:
      return "400 Bad Request";
    case 401:
      return "401 Unauthorized";
    case 403:
      return "403 Forbidden";
    case 404:
      return "404 Not Found";
    case 405:
      return "405 Method Not Allowed";
    case 409:
      return "409 Conflict";
    case 410:
      return "410 Gone";
    case 415:
      return "415 Unsupported Media Type";
    case 422:
      return "422 Unprocessable Entity";
    case 429:
      return "429 Too Many Requests";
    case 500:
      return "500 Internal Server Error";
    case 502:
      return "502 Bad Gateway";
    case 503:
      return "503 Service Unavailable";
    case 504:
      return "504 Gateway Timeout";
    default:
      return std::to_string(status);
  }
}

// The path without its query, for messages (queries may carry continue tokens).
std::string path_only(const std::string& path) { return path.substr(0, path.find('?')); }

}  // namespace

struct HttpClient::Curl {
  CURL* handle = nullptr;
  char error[CURL_ERROR_SIZE] = {};
  ~Curl() {
    if (handle != nullptr) curl().easy_cleanup(handle);
  }
};

namespace {

struct Transfer {
  HttpResponse* response = nullptr;
  const std::function<bool(std::string_view)>* on_line = nullptr;
  const std::function<bool()>* keep_going = nullptr;
  std::string pending;  // a partial line of a stream
  bool stopped = false;
  // A stream whose answer does not begin within this long is given up (a server that accepted
  // the connection while it was still starting may never answer it).
  Clock::time_point started = Clock::now();
  double header_timeout_s = 0;
  bool no_answer = false;
};

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  if (t->on_line == nullptr) {
    t->response->body.append(data, n);
    return n;
  }
  if (t->response->status >= 300) {  // an error answer to a stream: keep it for the message
    t->response->body.append(data, n);
    return n;
  }
  t->pending.append(data, n);
  std::size_t start = 0;
  for (std::size_t nl; (nl = t->pending.find('\n', start)) != std::string::npos; start = nl + 1) {
    if (!(*t->on_line)(std::string_view(t->pending).substr(start, nl - start))) {
      t->stopped = true;
      return 0;  // aborts the transfer
    }
  }
  t->pending.erase(0, start);
  return n;
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  std::string line(data, n);
  if (line.rfind("HTTP/", 0) == 0) {
    t->response->headers.clear();
    const std::size_t sp = line.find(' ');
    if (sp != std::string::npos)
      t->response->status = std::strtol(line.c_str() + sp + 1, nullptr, 10);
    return n;
  }
  const std::size_t colon = line.find(':');
  if (colon == std::string::npos) return n;
  std::string value = line.substr(colon + 1);
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front())))
    value.erase(value.begin());
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.pop_back();
  t->response->headers[lower(line.substr(0, colon))] = value;
  return n;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (t->keep_going != nullptr && !(*t->keep_going)()) {
    t->stopped = true;
    return 1;
  }
  if (t->response->status == 0 && t->header_timeout_s > 0 &&
      std::chrono::duration<double>(Clock::now() - t->started).count() > t->header_timeout_s) {
    t->no_answer = true;
    return 1;
  }
  return 0;
}

// Runs an exec credential plugin and returns its stdout.
std::string run_exec_plugin(const ExecPlugin& plugin) {
  int out[2];
  if (::pipe(out) != 0)
    throw ClusterError(0, "",
                       "cannot run the credential plugin \"" + plugin.command + "\": pipe failed");
  const std::string info = "KUBERNETES_EXEC_INFO={\"apiVersion\":\"" + plugin.api_version +
                           "\",\"kind\":\"ExecCredential\",\"spec\":{\"interactive\":false}}";
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
  for (const auto& [k, v] : plugin.env) env_strings.push_back(k + "=" + v);
  env_strings.push_back(info);
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_strings{plugin.command};
  for (const std::string& a : plugin.args) argv_strings.push_back(a);
  std::vector<char*> argv;
  for (std::string& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0)
    throw ClusterError(0, "",
                       "cannot run the credential plugin \"" + plugin.command + "\": fork failed");
  if (pid == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::close(out[0]);
    ::close(out[1]);
    ::execvpe(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(out[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) {
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > (1u << 20)) break;  // a credential is small
  }
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw ClusterError(0, "",
                       "the credential plugin \"" + plugin.command + "\" failed (exit status " +
                           std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")");
  }
  return text;
}

}  // namespace

HttpClient::HttpClient(ClusterAccess access, ConnectionOptions options)
    : access_(std::move(access)), options_(std::move(options)), curl_(std::make_unique<Curl>()) {
  curl_->handle = curl().easy_init();
  if (curl_->handle == nullptr) throw ClusterError(0, "", "cannot initialise libcurl");
}

HttpClient::~HttpClient() = default;

void HttpClient::log(const std::string& line) const {
  if (options_.log) options_.log(line);
}

void HttpClient::refresh_credentials(bool force) {
  if (!access_.exec) return;
  if (exec_loaded_ && !force &&
      (exec_expiry_ == std::chrono::system_clock::time_point{} ||
       std::chrono::system_clock::now() < exec_expiry_)) {
    return;
  }
  const std::string text = run_exec_plugin(*access_.exec);
  const nlohmann::json cred = nlohmann::json::parse(text, nullptr, false);
  if (!cred.is_object() || !cred.contains("status") || !cred["status"].is_object()) {
    throw ClusterError(
        0, "",
        "the credential plugin \"" + access_.exec->command + "\" printed no ExecCredential status");
  }
  const nlohmann::json& status = cred["status"];
  exec_token_ = status.value("token", "");
  if (status.contains("clientCertificateData"))
    access_.client_cert_pem = status.value("clientCertificateData", "");
  if (status.contains("clientKeyData")) access_.client_key_pem = status.value("clientKeyData", "");
  exec_expiry_ = {};
  if (const std::string expiry = status.value("expirationTimestamp", ""); !expiry.empty()) {
    if (const std::optional<std::int64_t> ns = io::parse_rfc3339(expiry)) {
      exec_expiry_ = std::chrono::system_clock::time_point(
          std::chrono::duration_cast<std::chrono::system_clock::duration>(
              std::chrono::nanoseconds(*ns)));
    }
  }
  exec_loaded_ = true;
}

std::string HttpClient::bearer_token() {
  if (!access_.token.empty()) return access_.token;
  if (!access_.token_file.empty()) {
    std::ifstream in(access_.token_file);
    std::string token;
    std::getline(in, token);
    while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back())))
      token.pop_back();
    return token;
  }
  return exec_token_;
}

HttpClient::Prepared::~Prepared() {
  curl().slist_free_all(headers);
  curl().slist_free_all(connect);
  std::fill(auth.begin(), auth.end(), '\0');
}

HttpClient::Prepared HttpClient::prepare(const std::string& method, const std::string& path,
                                         long timeout_ms, void* transfer) {
  CURL* h = curl_->handle;
  curl().easy_reset(h);
  Prepared p;
  std::string url = access_.server + path;
  if (!access_.tls_server_name.empty()) {
    // Verify against tls-server-name while connecting to the server's own address.
    const std::size_t host_start = url.find("://") + 3;
    const std::size_t host_end = url.find_first_of(":/", host_start);
    const std::string host = url.substr(host_start, host_end - host_start);
    url = url.substr(0, host_start) + access_.tls_server_name + url.substr(host_end);
    p.connect =
        curl().slist_append(p.connect, (access_.tls_server_name + "::" + host + ":").c_str());
    curl().easy_setopt(h, CURLOPT_CONNECT_TO, p.connect);
  }
  curl().easy_setopt(h, CURLOPT_URL, url.c_str());
  curl().easy_setopt(h, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl().easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl().easy_setopt(h, CURLOPT_ERRORBUFFER, curl_->error);
  curl_->error[0] = '\0';
  curl().easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl().easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, std::min(timeout_ms, 10'000L));
  curl().easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl().easy_setopt(h, CURLOPT_WRITEDATA, transfer);
  curl().easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl().easy_setopt(h, CURLOPT_HEADERDATA, transfer);
  curl().easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
  p.headers = curl().slist_append(p.headers, "Accept: application/json");
  p.headers = curl().slist_append(p.headers, "User-Agent: kaisim/0.1.0");
  const std::string token = bearer_token();
  if (!token.empty()) {
    p.auth = "Authorization: Bearer " + token;
    p.headers = curl().slist_append(p.headers, p.auth.c_str());
  }
  curl().easy_setopt(h, CURLOPT_HTTPHEADER, p.headers);
  if (!access_.username.empty()) {
    curl().easy_setopt(h, CURLOPT_USERNAME, access_.username.c_str());
    curl().easy_setopt(h, CURLOPT_PASSWORD, access_.password.c_str());
  }
  // The blobs point into access_, which outlives the transfer.
  if (!access_.ca_pem.empty()) {
    curl_blob ca{access_.ca_pem.data(), access_.ca_pem.size(), CURL_BLOB_NOCOPY};
    curl().easy_setopt(h, CURLOPT_CAINFO_BLOB, &ca);
  }
  if (access_.insecure_skip_tls_verify) {
    curl().easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
    curl().easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  if (!access_.client_cert_pem.empty()) {
    curl_blob cert{access_.client_cert_pem.data(), access_.client_cert_pem.size(),
                   CURL_BLOB_NOCOPY};
    curl_blob key{access_.client_key_pem.data(), access_.client_key_pem.size(), CURL_BLOB_NOCOPY};
    curl().easy_setopt(h, CURLOPT_SSLCERT_BLOB, &cert);
    curl().easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
    curl().easy_setopt(h, CURLOPT_SSLKEY_BLOB, &key);
    curl().easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
  }
  if (!access_.proxy_url.empty()) curl().easy_setopt(h, CURLOPT_PROXY, access_.proxy_url.c_str());
  return p;
}

HttpResponse HttpClient::request(const std::string& method, const std::string& path,
                                 const std::string& body, const std::string& content_type) {
  const Clock::time_point start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  double backoff = 0.2;
  std::string last_error;
  bool refreshed = false;
  for (int attempt = 1;; ++attempt) {
    refresh_credentials(false);
    const double remaining = options_.deadline_s - elapsed();
    CURL* h = curl_->handle;
    HttpResponse response;
    Transfer t;
    t.response = &response;
    const long timeout_ms =
        static_cast<long>(std::max(1.0, std::min(options_.request_timeout_s, remaining)) * 1000);
    Prepared prepared = prepare(method, path, timeout_ms, &t);
    if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
      curl().easy_setopt(h, CURLOPT_POSTFIELDS, body.c_str());
      curl().easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    }
    if (!content_type.empty()) {
      prepared.headers =
          curl().slist_append(prepared.headers, ("Content-Type: " + content_type).c_str());
      curl().easy_setopt(h, CURLOPT_HTTPHEADER, prepared.headers);
    }
    const Clock::time_point sent = Clock::now();
    const CURLcode code = curl().easy_perform(h);
    const long ms =
        static_cast<long>(std::chrono::duration<double, std::milli>(Clock::now() - sent).count());
    if (code == CURLE_OK) curl().easy_getinfo(h, CURLINFO_RESPONSE_CODE, &response.status);

    double wait = backoff;
    if (code != CURLE_OK) {
      last_error = std::string(curl_->error[0] != '\0' ? curl_->error : curl().easy_strerror(code));
      log(method + " " + path_only(path) + " -> no answer: " + last_error + " (" +
          std::to_string(ms) + " ms)");
      if (permanent(code)) throw ClusterError(0, "", access_.server + ": " + last_error);
    } else {
      log(method + " " + path_only(path) + " -> " + std::to_string(response.status) + " (" +
          std::to_string(ms) + " ms)");
      if (response.status == 401 && access_.exec && !refreshed) {
        refresh_credentials(true);  // an expired plugin credential: ask once more
        refreshed = true;
        continue;
      }
      if (!retryable_status(response.status)) return response;
      const double asked = retry_after(response.headers);
      if (asked >= 0) wait = std::max(wait, asked);
      last_error = status_text(response.status);
      if (asked >= 0) last_error += " (Retry-After: " + response.headers["retry-after"] + ")";
      if (options_.deadline_s - elapsed() < wait) {
        // Not worth waiting: report the server's own answer.
        std::string message = access_.server + ": " + method + " " + path_only(path) + ": " +
                              status_text(response.status);
        const nlohmann::json status = nlohmann::json::parse(response.body, nullptr, false);
        if (status.is_object() && status.contains("message") && status["message"].is_string()) {
          message += ": " + status["message"].get<std::string>();
        }
        throw ClusterError(
            static_cast<int>(response.status), "",
            message + "; gave up after " + std::to_string(attempt) + " attempt(s) in " +
                seconds(elapsed()) +
                (asked >= 0 ? " (the server asked to retry after " + seconds(asked) + ")"
                            : std::string()) +
                ", the deadline is " + seconds(options_.deadline_s));
      }
    }
    if (options_.deadline_s - elapsed() < wait) {
      throw ClusterError(0, "",
                         access_.server + ": " + method + " " + path_only(path) + ": no answer (" +
                             last_error + "); gave up after " + std::to_string(attempt) +
                             " attempt(s) in " + seconds(elapsed()) + ", the deadline is " +
                             seconds(options_.deadline_s));
    }
    log("retrying " + method + " " + path_only(path) + " in " + seconds(wait) + " after " +
        last_error);
    std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    backoff = std::min(backoff * 2, 5.0);
  }
}

long HttpClient::stream(const std::string& path,
                        const std::function<bool(std::string_view)>& on_line, double timeout_s,
                        const std::function<bool()>& keep_going) {
  refresh_credentials(false);
  CURL* h = curl_->handle;
  HttpResponse response;
  Transfer t;
  t.response = &response;
  t.on_line = &on_line;
  t.keep_going = &keep_going;
  t.header_timeout_s = std::min(options_.request_timeout_s, 5.0);
  Prepared prepared = prepare("GET", path, static_cast<long>(timeout_s * 1000), &t);
  log("GET " + path_only(path) + " (watch) from resourceVersion " +
      path.substr(path.find("resourceVersion=") == std::string::npos
                      ? path.size()
                      : path.find("resourceVersion=") + 16));
  curl().easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  curl().easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl().easy_setopt(h, CURLOPT_XFERINFODATA, &t);
  const CURLcode code = curl().easy_perform(h);
  if (t.no_answer) {
    log("GET " + path_only(path) + " (watch) -> no answer within " + seconds(t.header_timeout_s));
    return 0;
  }
  if (code == CURLE_OK || t.stopped || code == CURLE_OPERATION_TIMEDOUT ||
      code == CURLE_RECV_ERROR || code == CURLE_PARTIAL_FILE || code == CURLE_GOT_NOTHING) {
    if (response.status == 0 && code != CURLE_OK && !t.stopped) {
      log("GET " + path_only(path) +
          " (watch) -> no answer: " + std::string(curl().easy_strerror(code)));
      return 0;
    }
    if (response.status >= 300) {
      log("GET " + path_only(path) + " (watch) -> " + std::to_string(response.status));
      fail("GET", path, response);
    }
    log("GET " + path_only(path) + " (watch) ended: " +
        (code == CURLE_OK ? std::string("closed by the server")
                          : std::string(curl().easy_strerror(code))));
    return response.status;
  }
  if (permanent(code))
    throw ClusterError(
        0, "",
        access_.server + ": " +
            std::string(curl_->error[0] ? curl_->error : curl().easy_strerror(code)));
  log("GET " + path_only(path) + " (watch) -> no answer: " +
      std::string(curl_->error[0] ? curl_->error : curl().easy_strerror(code)));
  return 0;  // no connection: the caller retries until its deadline
}

void HttpClient::fail(const std::string& method, const std::string& path,
                      const HttpResponse& response) const {
  std::string message, reason;
  const nlohmann::json status = nlohmann::json::parse(response.body, nullptr, false);
  if (status.is_object()) {
    if (status.contains("message") && status["message"].is_string())
      message = status["message"].get<std::string>();
    if (status.contains("reason") && status["reason"].is_string())
      reason = status["reason"].get<std::string>();
  }
  std::string line =
      access_.server + ": " + method + " " + path_only(path) + ": " + status_text(response.status);
  if (response.status == 401) {
    line += ": the API server refused the credentials of user \"" + access_.user_name +
            "\" (kubeconfig context \"" + access_.context_name + "\")";
  } else if (!message.empty()) {
    line += ": " + message;
  }
  throw ClusterError(static_cast<int>(response.status), reason, line);
}

}  // namespace sim::live
