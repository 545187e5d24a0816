#pragma once
// The web view's files (index.html, app.js, app.css), embedded at build time
// (cmake/WebAssets.cmake generates their definition from the bundle in build/web/).

#include <cstddef>
#include <vector>

namespace kaisim::cli::web {

struct Asset {
  const char* path;  ///< "/index.html"
  const char* type;  ///< Content-Type
  const unsigned char* data;
  std::size_t size;
};

const std::vector<Asset>& assets();

}  // namespace kaisim::cli::web
