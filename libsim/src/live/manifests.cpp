#include "manifests.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "io/yaml_field.hpp"

namespace sim::live {
namespace {

namespace fs = std::filesystem;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::IO, path + ": cannot open: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error(ErrorCode::IO, path + ": read failed");
  return text.str();
}

bool one_of(const std::string& s, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(), [&](const char* w) { return s == w; });
}

// YAML 1.1 plain scalars as go-yaml v2 resolves them (sigs.k8s.io/yaml, what kubectl uses).
ordered_json plain_scalar(const std::string& s) {
  if (one_of(s, {"", "~", "null", "Null", "NULL"})) return nullptr;
  if (one_of(s, {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"}))
    return true;
  if (one_of(s, {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"}))
    return false;
  static const std::regex integer("[-+]?(0|[1-9][0-9_]*|0[0-7_]+|0x[0-9a-fA-F_]+)");
  static const std::regex floating("[-+]?(\\.[0-9]+|[0-9][0-9_]*(\\.[0-9_]*)?)([eE][-+]?[0-9]+)?");
  if (std::regex_match(s, integer)) {
    std::string digits = s;
    std::erase(digits, '_');
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(digits.c_str(), &end, 0);
    if (errno == 0 && *end == '\0') return v;
  }
  if (std::regex_match(s, floating)) {
    std::string digits = s;
    std::erase(digits, '_');
    const double v = std::strtod(digits.c_str(), nullptr);
    if (std::isfinite(v)) return v;
  }
  return s;
}

const YAML::Node* find_key(const YAML::Node& map, const char* key, YAML::Node& holder) {
  if (!map.IsMap()) return nullptr;
  const YAML::Node v = map[key];
  if (!v.IsDefined()) return nullptr;
  holder.reset(v);
  return &holder;
}

std::string scalar_at(const YAML::Node& n, const char* a, const char* b = nullptr) {
  YAML::Node h1, h2;
  const YAML::Node* x = find_key(n, a, h1);
  if (x == nullptr) return {};
  if (b != nullptr) {
    x = find_key(*x, b, h2);
    if (x == nullptr) return {};
  }
  return x->IsScalar() ? x->Scalar() : std::string();
}

void add_document(const YAML::Node& doc, const std::string& file, std::vector<ManifestObject>& out,
                  Diagnostics& diagnostics) {
  if (!doc.IsDefined() || doc.IsNull()) return;
  const io::Field f(doc, "", &file);
  const std::string where = file + ":" + std::to_string(f.where().line);
  if (!doc.IsMap()) {
    diagnostics.warnings.push_back(where + ": not a Kubernetes object (not a map), skipped");
    return;
  }
  const std::string kind = scalar_at(doc, "kind");
  const std::string api_version = scalar_at(doc, "apiVersion");
  if (kind.empty() || api_version.empty()) {
    diagnostics.warnings.push_back(where +
                                   ": not a Kubernetes object (no apiVersion and kind), skipped");
    return;
  }
  if (kind == "List" || (kind.size() > 4 && kind.ends_with("List") && api_version == "v1")) {
    for (const io::Field& item : f.member("items").items())
      add_document(item.node(), file, out, diagnostics);
    return;
  }
  const std::string name = scalar_at(doc, "metadata", "name");
  if (name.empty())
    f.member("metadata")
        .fail("missing required field \"name\" (generateName is not supported by apply)");
  ordered_json object = yaml_to_json(doc);
  out.push_back(
      {std::move(object), where, api_version, kind, scalar_at(doc, "metadata", "namespace"), name});
}

bool close(double a, double b) {
  return a == b || std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b));
}

bool same_value(const ordered_json& a, const ordered_json& b) {
  if (a.is_number() && b.is_number()) return close(a.get<double>(), b.get<double>());
  if (a.is_object() && b.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key()) || !same_value(it.value(), b[it.key()])) return false;
    }
    return true;
  }
  if (a.is_array() && b.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!same_value(a[i], b[i])) return false;
    }
    return true;
  }
  return a == b;
}

std::string join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

}  // namespace

ordered_json yaml_to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      ordered_json out = ordered_json::object();
      for (const auto& kv : node) out[kv.first.Scalar()] = yaml_to_json(kv.second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      ordered_json out = ordered_json::array();
      for (const YAML::Node& item : node) out.push_back(yaml_to_json(item));
      return out;
    }
    case YAML::NodeType::Scalar: {
      const std::string& tag = node.Tag();
      if (tag == "!" || tag == "tag:yaml.org,2002:str") return node.Scalar();  // quoted: a string
      return plain_scalar(node.Scalar());
    }
    default:
      return nullptr;
  }
}

std::vector<ManifestObject> read_manifests(const std::vector<std::string>& paths,
                                           Diagnostics& diagnostics) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (const auto& entry : fs::directory_iterator(p, ec)) {
        const std::string ext = entry.path().extension().string();
        if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json"))
          found.push_back(entry.path().string());
      }
      if (ec) throw Error(ErrorCode::IO, p + ": cannot list: " + ec.message());
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(p);
    }
  }
  std::vector<ManifestObject> out;
  for (const std::string& file : files) {
    const std::string text = read_file(file);
    io::require_utf8(text, file);
    for (const YAML::Node& doc : io::parse_documents(text, file))
      add_document(doc, file, out, diagnostics);
  }
  return out;
}

std::string show_value(const ordered_json& v) {
  std::string s = v.is_string() ? v.get<std::string>()
                                : v.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  return s;
}

std::vector<std::string> planned_field_drift(const ordered_json& planned, const ordered_json& live,
                                             const std::string& path) {
  std::vector<std::string> out;
  if (planned.is_object() && live.is_object()) {
    for (auto it = planned.begin(); it != planned.end(); ++it) {
      const std::string p = join(path, it.key());
      if (!live.contains(it.key())) {
        if (!it.value().is_null()) out.push_back(p + ": (unset) -> " + show_value(it.value()));
        continue;
      }
      for (std::string& d : planned_field_drift(it.value(), live[it.key()], p))
        out.push_back(std::move(d));
    }
    return out;
  }
  if (!same_value(planned, live))
    out.push_back(path + ": " + show_value(live) + " -> " + show_value(planned));
  return out;
}

std::vector<std::string> changed_fields(const ordered_json& before, const ordered_json& after,
                                        const std::string& path) {
  std::vector<std::string> out;
  if (before.is_object() && after.is_object()) {
    for (auto it = before.begin(); it != before.end(); ++it) {
      const std::string p = join(path, it.key());
      if (!after.contains(it.key())) {
        out.push_back(p + ": " + show_value(it.value()) + " -> (unset)");
      } else {
        for (std::string& d : changed_fields(it.value(), after[it.key()], p))
          out.push_back(std::move(d));
      }
    }
    for (auto it = after.begin(); it != after.end(); ++it) {
      if (!before.contains(it.key()))
        out.push_back(join(path, it.key()) + ": (unset) -> " + show_value(it.value()));
    }
    return out;
  }
  if (!same_value(before, after))
    out.push_back(path + ": " + show_value(before) + " -> " + show_value(after));
  return out;
}

}  // namespace sim::live
