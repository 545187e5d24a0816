#pragma once
// `kaisim apply PLAN...`: server-side apply of a folder of manifests (a plan folder as
// `kaisim plan` writes it, or the runbook's files) as field manager `kaisim`. Dry run by default.

#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/live/connection.hpp"

namespace sim::live {

struct ApplyOptions {
  /// Manifest files (.yaml, .yml, .json) and folders of them (their files in name order).
  /// Documents without apiVersion and kind (e.g. a plan.json, Helm values) are skipped.
  std::vector<std::string> paths;
  /// Server-side dry run (dryRun=All): the API server validates and admits every object and
  /// answers what it would store; nothing changes. False only with --yes.
  bool dry_run = true;
  /// Take over fields another field manager owns (a 409 conflict otherwise).
  bool force_conflicts = false;
  std::string field_manager = "kaisim";
};

/// What happened to one object. `outcome`: created, changed, unchanged, conflict (another
/// field manager owns a field: not applied), rejected (the API server refused it: validation,
/// admission, a missing namespace).
struct AppliedObject {
  std::string kind, api_version, ns, name;
  std::string file;  ///< FILE:LINE of the manifest
  std::string outcome;
  /// changed: each changed field as "path: old -> new"; conflict: each field and its manager.
  std::vector<std::string> details;
  std::string message;  ///< rejected/conflict: the API server's message
};

struct ApplyReport {
  bool dry_run = true;
  std::vector<AppliedObject> objects;
  /// Set when applying stopped at an error (unreachable server, refused credentials, forbidden):
  /// `objects` then holds what was applied before it; every object is applied whole or not at all.
  std::string error;
  /// 0: every object created, changed or unchanged; 1: a conflict or a rejection; 2: `error`.
  int exit_code() const;
  /// One line per object, then a count line.
  std::string text() const;
  /// {"dryRun", "objects": [...], "counts": {...}, "error"} (docs/live.md).
  std::string json() const;
};

/// Reads every manifest first (bad input: InputError naming the file, line and field; nothing is
/// sent), orders them (Namespaces and CRDs, PriorityClasses, RuntimeClasses, Queues parents
/// before children, admission policies, their bindings, then the rest in file order) and applies
/// them one by one.
ApplyReport apply_manifests(const ConnectionOptions& connection, const ApplyOptions& options,
                            Diagnostics& diagnostics);

}  // namespace sim::live
