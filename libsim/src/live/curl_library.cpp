#include "curl_library.hpp"

#include <dlfcn.h>

#include <string>

#include "sim/live/connection.hpp"

namespace sim::live {
namespace {

// The library's soname since libcurl 7.16 (Debian's libcurl4 package).
constexpr const char* kSoname = "libcurl.so.4";

template <typename F>
void bind(void* library, const char* name, F& to) {
  void* symbol = ::dlsym(library, name);
  if (symbol == nullptr) throw ClusterError(0, "", std::string(kSoname) + " has no " + name);
  to = reinterpret_cast<F>(symbol);
}

CurlLibrary load() {
  // Never closed once loaded: libcurl keeps global state (its TLS back end) for the whole process.
  void* library = ::dlopen(kSoname, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = ::dlerror();
    throw ClusterError(
        0, "",
        std::string("cannot load ") + kSoname + " (install libcurl4): " + (why ? why : "unknown"));
  }
  try {
    CurlLibrary c{};
    bind(library, "curl_global_init", c.global_init);
    bind(library, "curl_easy_init", c.easy_init);
    bind(library, "curl_easy_setopt", c.easy_setopt);
    bind(library, "curl_easy_perform", c.easy_perform);
    bind(library, "curl_easy_getinfo", c.easy_getinfo);
    bind(library, "curl_easy_reset", c.easy_reset);
    bind(library, "curl_easy_cleanup", c.easy_cleanup);
    bind(library, "curl_easy_strerror", c.easy_strerror);
    bind(library, "curl_slist_append", c.slist_append);
    bind(library, "curl_slist_free_all", c.slist_free_all);
    if (c.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
      throw ClusterError(0, "", "cannot initialise libcurl");
    }
    return c;
  } catch (...) {
    ::dlclose(library);  // the next call loads it again
    throw;
  }
}

}  // namespace

const CurlLibrary& curl() {
  static const CurlLibrary library = load();  // a throw leaves it unset; the next call tries again
  return library;
}

}  // namespace sim::live
