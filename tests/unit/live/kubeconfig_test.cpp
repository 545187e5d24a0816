// The kubeconfig as kubectl reads it: $KUBECONFIG files merged (the first that names an entry or
// sets current-context wins, missing files skipped), --context, file references relative to the
// file naming them, *-data in base64, and one-line errors naming the file and field.
#include "live/kubeconfig.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "live/manifests.hpp"

namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  // mkdtemp: CTest runs each test case in its own process at once, and std::rand() unseeded
  // gives every process the same name.
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "kaisim-kubeconfig-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path = pattern;
    fs::create_directories(path / "sub");
  }
  ~TempDir() { fs::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

sim::live::ClusterAccess load(const std::string& file, const std::string& context = {}) {
  sim::live::ConnectionOptions options;
  options.kubeconfig = file;
  options.context = context;
  return sim::live::load_kubeconfig(options);
}

const char* kMain = R"(apiVersion: v1
kind: Config
clusters:
- name: a
  cluster: {server: "https://10.0.0.1:6443/", certificate-authority: ca.pem, tls-server-name: kubernetes}
- name: b
  cluster: {server: "https://10.0.0.2:6443", insecure-skip-tls-verify: true}
users:
- name: cert
  user: {client-certificate-data: Q0VSVA==, client-key-data: S0VZ}
- name: tok
  user: {tokenFile: sub/token}
contexts:
- name: one
  context: {cluster: a, user: cert}
- name: two
  context: {cluster: b, user: tok}
current-context: one
)";

}  // namespace

TEST_CASE("kubeconfig: current context, data fields, files relative to the kubeconfig",
          "[kubeconfig]") {
  TempDir dir;
  dir.write("ca.pem", "PEM CA");
  dir.write("sub/token", "secret\n");
  const auto a = load(dir.write("config", kMain));
  CHECK(a.context_name == "one");
  CHECK(a.server == "https://10.0.0.1:6443");  // trailing slash dropped
  CHECK(a.ca_pem == "PEM CA");
  CHECK(a.tls_server_name == "kubernetes");
  CHECK(a.client_cert_pem == "CERT");
  CHECK(a.client_key_pem == "KEY");
  CHECK_FALSE(a.insecure_skip_tls_verify);
  const auto b = load((dir.path / "config").string(), "two");
  CHECK(b.insecure_skip_tls_verify);
  CHECK(b.token_file == (dir.path / "sub/token").string());
}

TEST_CASE("kubeconfig: $KUBECONFIG files merge, the first one that names an entry wins",
          "[kubeconfig]") {
  TempDir dir;
  const std::string first =
      dir.write("first", R"(clusters: [{name: a, cluster: {server: "https://first:1"}}]
users: [{name: u, user: {token: t1}}]
contexts: [{name: c, context: {cluster: a, user: u}}]
)");
  const std::string second =
      dir.write("second", R"(clusters: [{name: a, cluster: {server: "https://second:2"}}]
users: [{name: u, user: {token: t2}}]
contexts: [{name: c, context: {cluster: a, user: u}}]
current-context: c
)");
  const char* before = std::getenv("KUBECONFIG");
  const std::string saved = before ? before : "";
  ::setenv("KUBECONFIG", (first + ":" + (dir.path / "missing").string() + ":" + second).c_str(), 1);
  sim::live::ConnectionOptions options;
  const auto access = sim::live::load_kubeconfig(options);
  if (before)
    ::setenv("KUBECONFIG", saved.c_str(), 1);
  else
    ::unsetenv("KUBECONFIG");
  CHECK(access.server == "https://first:1");
  CHECK(access.token == "t1");
  CHECK(access.context_name == "c");  // from the second file, the first that sets it
}

TEST_CASE("kubeconfig: errors name the file and the field", "[kubeconfig]") {
  TempDir dir;
  const std::string file = dir.write("config", kMain);
  CHECK_THROWS_WITH(load(file, "three"), Catch::Contains("contexts: no context named \"three\""));
  const std::string no_server =
      dir.write("bad", R"(clusters: [{name: a, cluster: {certificate-authority-data: "!!"}}]
contexts: [{name: c, context: {cluster: a}}]
current-context: c
)");
  CHECK_THROWS_WITH(load(no_server), Catch::Contains("bad:1:") &&
                                         Catch::Contains("missing required field \"server\""));
  CHECK_THROWS_WITH(load((dir.path / "absent").string()),
                    Catch::Contains("kubeconfig file does not exist"));
  const std::string provider =
      dir.write("provider", R"(clusters: [{name: a, cluster: {server: "https://x"}}]
users: [{name: u, user: {auth-provider: {name: gcp}}}]
contexts: [{name: c, context: {cluster: a, user: u}}]
current-context: c
)");
  CHECK_THROWS_WITH(load(provider), Catch::Contains("auth-provider plugins are not supported"));
}

TEST_CASE("base64 as kubeconfig *-data fields hold it", "[kubeconfig]") {
  CHECK(sim::live::base64_decode("aGVsbG8gd29ybGQ=") == std::string("hello world"));
  CHECK(sim::live::base64_decode("aGVsbG8g\nd29ybGQ=") == std::string("hello world"));
  CHECK_FALSE(sim::live::base64_decode("a*b"));
}

TEST_CASE("manifest scalars are typed as kubectl's YAML reader types them", "[manifests]") {
  const auto j = sim::live::yaml_to_json(YAML::Load(
      R"({a: true, b: "true", c: 10, d: 0.33, e: ~, f: yes, g: "010", h: 010, i: 1e3, j: text, k: "0.5"})"));
  CHECK(j["a"] == true);
  CHECK(j["b"] == "true");
  CHECK(j["c"] == 10);
  CHECK(j["d"] == 0.33);
  CHECK(j["e"].is_null());
  CHECK(j["f"] == true);
  CHECK(j["g"] == "010");
  CHECK(j["h"] == 8);  // YAML 1.1 octal, as go-yaml v2 reads it
  CHECK(j["i"] == 1000.0);
  CHECK(j["j"] == "text");
  CHECK(j["k"] == "0.5");
}
