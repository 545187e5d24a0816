#include "kubeconfig.hpp"

#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "io/yaml_field.hpp"

namespace sim::live {
namespace {

namespace fs = std::filesystem;
using io::Field;

std::string read_file(const std::string& path, const Field& from) {
  std::ifstream in(path, std::ios::binary);
  if (!in) from.fail("cannot read \"" + path + "\"");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A named entry (cluster, user, context) and the file that defined it.
struct Entry {
  Field body;
  fs::path dir;
};

struct Merged {
  std::map<std::string, Entry> clusters, users, contexts;
  std::string current_context;
  std::string sources;
};

void merge_named(const Field& list, const char* body_key, const fs::path& dir,
                 std::map<std::string, Entry>& into) {
  if (list.is_null()) return;
  for (const Field& item : list.items()) {
    item.expect_map();
    const std::string name = item.member("name").optional_string().value_or("");
    if (name.empty()) item.fail("missing required field \"name\"");
    Field body = item.member(body_key);
    if (body.is_null()) item.fail(std::string("missing required field \"") + body_key + "\"");
    body.expect_map();
    into.try_emplace(name, Entry{body, dir});  // the first file that names it wins
  }
}

std::string path_from(const Field& f, const fs::path& dir) {
  const std::string p = f.string();
  if (p.empty()) return p;
  const fs::path path(p);
  return (path.is_absolute() ? path : dir / path).string();
}

// "<name>-data" (base64) or "<name>" (a file).
std::string pem_field(const Field& body, const char* name, const fs::path& dir) {
  const Field data = body.member(std::string(name) + "-data");
  if (!data.is_null()) {
    std::optional<std::string> decoded = base64_decode(data.string());
    if (!decoded) data.fail("not valid base64");
    return *decoded;
  }
  const Field file = body.member(name);
  if (file.is_null()) return {};
  return read_file(path_from(file, dir), file);
}

bool flag(const Field& f) {
  return !f.is_null() && f.node().IsScalar() && f.node().Scalar() == "true";
}

}  // namespace

std::optional<std::string> base64_decode(const std::string& text) {
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (char c : text) {
    int v;
    if (c >= 'A' && c <= 'Z')
      v = c - 'A';
    else if (c >= 'a' && c <= 'z')
      v = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      v = c - '0' + 52;
    else if (c == '+')
      v = 62;
    else if (c == '/')
      v = 63;
    else if (c == '=' || c == '\n' || c == '\r' || c == ' ')
      continue;
    else
      return std::nullopt;
    buffer = (buffer << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  return out;
}

ClusterAccess load_kubeconfig(const ConnectionOptions& options) {
  std::vector<std::string> files;
  if (!options.kubeconfig.empty()) {
    files.push_back(options.kubeconfig);
  } else if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != '\0') {
    std::stringstream list(env);
    for (std::string f; std::getline(list, f, ':');) {
      if (!f.empty()) files.push_back(f);
    }
  } else if (const char* home = std::getenv("HOME"); home != nullptr) {
    files.push_back((fs::path(home) / ".kube" / "config").string());
  }
  if (files.empty())
    throw InputError({}, "kubeconfig", "no kubeconfig: set KUBECONFIG or pass --kubeconfig");

  std::deque<std::string> names;  // declared before the Fields that point at them
  Merged merged;
  bool any = false;
  for (const std::string& file : files) {
    std::error_code ec;
    // kubectl skips $KUBECONFIG files that do not exist; one named on the command line must.
    if (!fs::exists(file, ec)) {
      if (!options.kubeconfig.empty())
        throw InputError({file, 0, 0}, "", "kubeconfig file does not exist");
      continue;
    }
    names.push_back(file);
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in && !in.eof()) throw InputError({file, 0, 0}, "", "cannot read the kubeconfig");
    const std::string body = text.str();
    io::require_utf8(body, file);
    const Field root(io::parse_single_document(body, file), "", &names.back());
    if (root.is_null()) continue;
    root.expect_map();
    any = true;
    const fs::path dir = fs::absolute(file, ec).parent_path();
    merge_named(root.member("clusters"), "cluster", dir, merged.clusters);
    merge_named(root.member("users"), "user", dir, merged.users);
    merge_named(root.member("contexts"), "context", dir, merged.contexts);
    if (merged.current_context.empty())
      merged.current_context = root.member("current-context").optional_string().value_or("");
    merged.sources += (merged.sources.empty() ? "" : ":") + file;
  }
  if (!any)
    throw InputError({files.front(), 0, 0}, "",
                     "no kubeconfig found (set KUBECONFIG or pass --kubeconfig)");

  ClusterAccess access;
  access.source = merged.sources;
  access.context_name = options.context.empty() ? merged.current_context : options.context;
  if (access.context_name.empty()) {
    throw InputError({merged.sources, 0, 0}, "current-context",
                     "no context chosen: the kubeconfig sets no current-context (pass --context)");
  }
  auto context = merged.contexts.find(access.context_name);
  if (context == merged.contexts.end()) {
    throw InputError({merged.sources, 0, 0}, "contexts",
                     "no context named \"" + access.context_name + "\"");
  }
  const Field& ctx = context->second.body;
  access.cluster_name = ctx.member("cluster").optional_string().value_or("");
  access.user_name = ctx.member("user").optional_string().value_or("");

  auto cluster = merged.clusters.find(access.cluster_name);
  if (cluster == merged.clusters.end())
    ctx.member("cluster").fail("no cluster named \"" + access.cluster_name + "\"");
  const Field& c = cluster->second.body;
  access.server = c.member("server").optional_string().value_or("");
  if (access.server.empty()) c.fail("missing required field \"server\"");
  while (!access.server.empty() && access.server.back() == '/') access.server.pop_back();
  if (access.server.rfind("https://", 0) != 0 && access.server.rfind("http://", 0) != 0) {
    c.member("server").fail("not an http(s) URL");
  }
  access.ca_pem = pem_field(c, "certificate-authority", cluster->second.dir);
  access.insecure_skip_tls_verify = flag(c.member("insecure-skip-tls-verify"));
  access.tls_server_name = c.member("tls-server-name").optional_string().value_or("");
  access.proxy_url = c.member("proxy-url").optional_string().value_or("");

  if (access.user_name.empty()) return access;  // anonymous
  auto user = merged.users.find(access.user_name);
  if (user == merged.users.end())
    ctx.member("user").fail("no user named \"" + access.user_name + "\"");
  const Field& u = user->second.body;
  access.client_cert_pem = pem_field(u, "client-certificate", user->second.dir);
  access.client_key_pem = pem_field(u, "client-key", user->second.dir);
  if (access.client_cert_pem.empty() != access.client_key_pem.empty()) {
    u.fail("a client certificate needs both client-certificate and client-key");
  }
  access.token = u.member("token").optional_string().value_or("");
  if (const Field tf = u.member("tokenFile"); !tf.is_null() && access.token.empty()) {
    access.token_file = path_from(tf, user->second.dir);
  }
  access.username = u.member("username").optional_string().value_or("");
  access.password = u.member("password").optional_string().value_or("");
  if (!u.member("auth-provider").is_null()) {
    u.member("auth-provider")
        .fail("auth-provider plugins are not supported (use an exec plugin or a token)");
  }
  if (const Field exec = u.member("exec"); !exec.is_null()) {
    exec.expect_map();
    ExecPlugin plugin;
    plugin.api_version =
        exec.member("apiVersion").optional_string().value_or("client.authentication.k8s.io/v1");
    plugin.command = exec.member("command").optional_string().value_or("");
    if (plugin.command.empty()) exec.fail("missing required field \"command\"");
    for (const Field& a : exec.member("args").items()) plugin.args.push_back(a.string());
    for (const Field& e : exec.member("env").items()) {
      plugin.env.emplace_back(e.member("name").string(),
                              e.member("value").optional_string().value_or(""));
    }
    plugin.provide_cluster_info = flag(exec.member("provideClusterInfo"));
    // A relative command with a slash is relative to the kubeconfig, as client-go resolves it.
    if (plugin.command.find('/') != std::string::npos && fs::path(plugin.command).is_relative()) {
      plugin.command = (user->second.dir / plugin.command).string();
    }
    access.exec = std::move(plugin);
  }
  return access;
}

}  // namespace sim::live
