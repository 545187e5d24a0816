#pragma once
// Private: Kubernetes manifests read from files into JSON objects as kubectl reads them
// (sigs.k8s.io/yaml: YAML 1.1 scalars, so `true`, `yes`, `10`, `0.5` and `~` keep their types),
// and field-by-field comparison of objects.

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "kube_api.hpp"
#include "sim/core/error.hpp"

namespace sim::live {

struct ManifestObject {
  ordered_json object;
  std::string file;                         ///< FILE:LINE
  std::string api_version, kind, ns, name;  ///< ns empty in the manifest: as written
};

/// Every object of the files and folders (a folder: its .yaml/.yml/.json files in name order;
/// `kind: List` expanded). Documents without apiVersion and kind are skipped with a warning.
/// Throws InputError for unreadable files, bad YAML, or an object without metadata.name.
std::vector<ManifestObject> read_manifests(const std::vector<std::string>& paths,
                                           Diagnostics& diagnostics);

/// The document as JSON, scalars typed as sigs.k8s.io/yaml types them.
ordered_json yaml_to_json(const YAML::Node& node);

/// The fields `planned` sets that `live` lacks or holds differently, as "path: live -> planned"
/// (numbers compare by value). Fields only `live` has are not reported.
std::vector<std::string> planned_field_drift(const ordered_json& planned, const ordered_json& live,
                                             const std::string& path);

/// Every leaf that differs between two objects, as "path: before -> after" (both sides' fields).
std::vector<std::string> changed_fields(const ordered_json& before, const ordered_json& after,
                                        const std::string& path);

/// A JSON value for messages: strings unquoted, the rest compact JSON, cut at 80 characters.
std::string show_value(const ordered_json& v);

}  // namespace sim::live
