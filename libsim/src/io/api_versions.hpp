#pragma once
// Private to io: the API versions a cluster running KAI v0.16.4 serves for the kinds kaisim reads,
// so a manifest with a version the API server would not know (kubectl: "no matches for kind") is
// an error at its apiVersion instead of an object read as if it were right.

#include <string_view>

#include "yaml_field.hpp"

namespace sim::io {

/// Checks `obj`'s apiVersion, when it has one, against those served for `kind` (one kaisim reads);
/// throws InputError at the field when it is not one of them.
void check_api_version(const Field& obj, std::string_view kind);

}  // namespace sim::io
