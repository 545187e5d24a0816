#include "web_routes.hpp"

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "read_input.hpp"
#include "sim/api/explain.hpp"
#include "sim/core/error.hpp"
#include "web_assets.hpp"

namespace kaisim::cli {
namespace {

// What the replay viewer reads: the folder's files, read once.
struct LoadedReplay {
  std::string folder, events, summary;
  std::string payload;  // GET /api/replay's body
};

std::shared_ptr<const LoadedReplay> load_replay(const std::string& dir) {
  auto r = std::make_shared<LoadedReplay>();
  const std::filesystem::path p(dir);
  r->folder = dir;
  r->events = read_input((p / "events.jsonl").string());
  r->summary = read_input((p / "summary.json").string());
  const std::string timeline = read_input((p / "timeline.csv").string());
  const std::string kai_timeline = read_input((p / "kai-timeline.csv").string());
  (void)sim::api::explain_replay(r->events, r->summary, "",
                                 dir);  // throws unless it is a replay's output
  nlohmann::ordered_json body = {{"folder", dir},
                                 {"summary", nlohmann::ordered_json::parse(r->summary)},
                                 {"timeline", timeline},
                                 {"kai_timeline", kai_timeline},
                                 {"events", r->events}};
  r->payload = body.dump();
  return r;
}

// The page loads nothing from elsewhere: no CDN, no inline code.
void page_headers(httplib::Response& res) {
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'");
  res.set_header("Cache-Control", "no-cache");
}

void text(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  page_headers(res);
  res.set_content(body + (body.ends_with("\n") ? "" : "\n"), "text/plain; charset=utf-8");
}

}  // namespace

void install_web_routes(httplib::Server& server, const WebOptions& options) {
  std::shared_ptr<const LoadedReplay> replay =
      options.replay_dir.empty() ? nullptr : load_replay(options.replay_dir);
  for (const web::Asset& asset : web::assets()) {
    const std::string path = asset.path;
    auto serve = [asset](const httplib::Request&, httplib::Response& res) {
      page_headers(res);
      res.set_content(reinterpret_cast<const char*>(asset.data), asset.size, asset.type);
    };
    server.Get(path, serve);
    if (path == "/index.html") server.Get("/", serve);
  }
  server.Get("/favicon.ico",
             [](const httplib::Request&, httplib::Response& res) { res.status = 204; });
  server.Get("/api/replay", [replay](const httplib::Request&, httplib::Response& res) {
    if (!replay) {
      text(res, 404,
           "No replay loaded: start the server with kaisim serve --replay OUT, where OUT is a "
           "folder kaisim replay --out wrote.");
      return;
    }
    page_headers(res);
    res.set_content(replay->payload, "application/json");
  });
  server.Get("/api/explain", [replay](const httplib::Request& req, httplib::Response& res) {
    if (!replay) {
      text(res, 404, "No replay loaded (kaisim serve --replay OUT).");
      return;
    }
    try {
      text(res, 200,
           sim::api::explain_replay(replay->events, replay->summary, req.get_param_value("target"),
                                    replay->folder));
    } catch (const sim::InputError& e) {
      text(res, 404, e.what());
    }
  });
}

}  // namespace kaisim::cli
