#pragma once
// The web view's routes on `kaisim serve`: GET / (the page and its embedded assets), and for the
// replay viewer GET /api/replay (the folder given with --replay) and GET /api/explain?target=.
// The fair-share calculator posts to the server's own /simulate.

#include <httplib.h>

#include <string>

namespace kaisim::cli {

struct WebOptions {
  std::string
      replay_dir;  ///< a `kaisim replay --out` folder; empty: the viewer says how to give one
};

/// Adds the routes. Reads the replay folder once, before the server listens; throws sim::Error
/// when it is not a replay's output.
void install_web_routes(httplib::Server& server, const WebOptions& options);

}  // namespace kaisim::cli
