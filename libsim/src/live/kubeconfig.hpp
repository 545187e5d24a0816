#pragma once
// Private: a kubeconfig read as kubectl reads it (k8s.io/client-go/tools/clientcmd): the files of
// $KUBECONFIG merged (the first file that sets a map entry or current-context wins), one context
// chosen, its cluster and user resolved, file references relative to the file naming them.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/live/connection.hpp"

namespace sim::live {

/// A client.authentication.k8s.io exec credential plugin.
struct ExecPlugin {
  std::string api_version;
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  bool provide_cluster_info = false;
};

/// Everything needed to reach and authenticate to one cluster. Holds secrets: never print it.
struct ClusterAccess {
  std::string server;  ///< https://host:port, without a trailing slash
  std::string context_name, cluster_name, user_name;
  std::string source;  ///< the kubeconfig file(s), for messages
  std::string ca_pem;  ///< empty: the system's CAs
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;
  std::string proxy_url;
  std::string client_cert_pem, client_key_pem;
  std::string token;
  std::string token_file;  ///< read again before each use, as client-go does
  std::string username, password;
  std::optional<ExecPlugin> exec;
};

/// Reads the kubeconfig named by `options` (or $KUBECONFIG, or ~/.kube/config). Throws
/// InputError naming the file and field of anything missing or malformed.
ClusterAccess load_kubeconfig(const ConnectionOptions& options);

/// Standard base64 (with or without padding); nullopt on a bad character.
std::optional<std::string> base64_decode(const std::string& text);

}  // namespace sim::live
