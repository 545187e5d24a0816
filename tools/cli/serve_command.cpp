// `kaisim serve`: HTTP drop-in for KAI's fair-share simulator (POST /simulate, same body, same
// response). Listens on loopback unless told otherwise; stops cleanly on SIGINT/SIGTERM.

#include <httplib.h>
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <csignal>
#include <iostream>
#include <thread>

#include "commands.hpp"
#include "web_routes.hpp"
#include "sim/api/fair_share_simulator.hpp"

namespace kaisim::cli {
namespace {

constexpr std::size_t kMaxBodyBytes = 64u << 20;  // larger bodies get 413

struct ServeOptions {
  int port = 8080;
  std::string bind = "127.0.0.1";
  bool enable_cors = false;
  std::string replay;  // a replay output folder for the web view
};

void add_cors_headers(httplib::Response& res) {
  res.set_header("Access-Control-Allow-Origin", "*");
  res.set_header("Access-Control-Allow-Methods", "POST, OPTIONS");
  res.set_header("Access-Control-Allow-Headers", "Content-Type");
}

// Same shape as Go's http.Error: plain text, one line, trailing newline.
void send_error(httplib::Response& res, int status, const std::string& text) {
  res.status = status;
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_content(text + "\n", "text/plain; charset=utf-8");
}

void handle_simulate(const httplib::Request& req, httplib::Response& res, bool cors) {
  if (cors) add_cors_headers(res);
  sim::Diagnostics diagnostics;
  try {
    res.set_content(sim::api::answer_simulate_request(req.body, "request", false, diagnostics),
                    "application/json");
  } catch (const sim::InputError& e) {
    send_error(res, 400, e.what());
  }
  for (const std::string& warning : diagnostics.warnings) std::cerr << "kaisim serve: warning: " << warning << "\n";
}

void install_routes(httplib::Server& server, bool cors) {
  server.set_payload_max_length(kMaxBodyBytes);
  server.Post("/simulate", [cors](const httplib::Request& req, httplib::Response& res) {
    handle_simulate(req, res, cors);
  });
  server.Options("/simulate", [cors](const httplib::Request&, httplib::Response& res) {
    if (cors) {
      add_cors_headers(res);
      res.status = 200;
    } else {
      send_error(res, 405, "Only POST allowed");
    }
  });
  auto not_allowed = [cors](const httplib::Request&, httplib::Response& res) {
    if (cors) add_cors_headers(res);
    send_error(res, 405, "Only POST allowed");
  };
  server.Get("/simulate", not_allowed);
  server.Put("/simulate", not_allowed);
  server.Delete("/simulate", not_allowed);
  server.Patch("/simulate", not_allowed);
}

int run_serve(const ServeOptions& options) {
  // Block SIGINT/SIGTERM here so the server threads never see them; this thread waits for them.
  // A shell may start us with SIGINT ignored (background jobs); ignored signals are discarded even
  // when blocked, so restore the default disposition before waiting for them.
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  httplib::Server server;
  install_routes(server, options.enable_cors);
  install_web_routes(server, {options.replay});
  int port = options.port;
  if (port == 0) {
    port = server.bind_to_any_port(options.bind);
  } else if (!server.bind_to_port(options.bind, port)) {
    port = -1;
  }
  if (port < 0) {
    std::cerr << "kaisim: error: cannot listen on " << options.bind << ":" << options.port << "\n";
    return 1;
  }
  std::thread listener([&server] { server.listen_after_bind(); });
  // stop() is a no-op until the accept loop runs, so announce readiness only once it does.
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::cerr << "kaisim serve: listening on http://" << options.bind << ":" << port
            << "/simulate" << std::endl;
  std::cerr << "kaisim serve: web view at http://" << options.bind << ":" << port << "/" << std::endl;

  int received = 0;
  sigwait(&stop_signals, &received);
  server.stop();
  listener.join();
  std::cerr << "kaisim serve: stopped" << std::endl;
  return kExitOk;
}

}  // namespace

Command add_serve_command(CLI::App& app) {
  auto options = std::make_shared<ServeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "HTTP server compatible with KAI's fair-share simulator: POST /simulate with the same\n"
      "body as `kaisim fairshare`; answers 200 with the fair shares or 400 with the error text.\n"
      "GET / is the web view: a fair-share calculator, and with --replay OUT a replay viewer.");
  cmd->add_option("--port", options->port, "TCP port (0 picks a free one)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--bind", options->bind, "address to listen on")->capture_default_str();
  cmd->add_flag("--enable-cors", options->enable_cors, "send CORS headers, as KAI's -enable-cors does");
  cmd->add_option("--replay", options->replay, "a `kaisim replay --out` folder for the web view's replay viewer");
  return [options] { return run_serve(*options); };
}

}  // namespace kaisim::cli
