#pragma once
// Private to live: libcurl, loaded when the first client is made. Linked at start, it brought about
// thirty-five more shared libraries (GnuTLS, Kerberos, LDAP, ...) into every kaisim command, live
// or not: about 9 ms of each start, three quarters of `kaisim --version`.

#include <curl/curl.h>

namespace sim::live {

/// The libcurl functions kaisim calls.
struct CurlLibrary {
  decltype(&::curl_global_init) global_init;
  decltype(&::curl_easy_init) easy_init;
  decltype(&::curl_easy_setopt) easy_setopt;
  decltype(&::curl_easy_perform) easy_perform;
  decltype(&::curl_easy_getinfo) easy_getinfo;
  decltype(&::curl_easy_reset) easy_reset;
  decltype(&::curl_easy_cleanup) easy_cleanup;
  decltype(&::curl_easy_strerror) easy_strerror;
  decltype(&::curl_slist_append) slist_append;
  decltype(&::curl_slist_free_all) slist_free_all;
};

/// libcurl, loaded and globally initialised on the first call (thread-safe); throws ClusterError
/// when it cannot be loaded.
const CurlLibrary& curl();

}  // namespace sim::live
