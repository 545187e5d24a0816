// `kaisim serve`: HTTP drop-in for KAI's fair-share simulator (POST /simulate, same body, same
// response). Listens on loopback unless told otherwise; stops cleanly on SIGINT/SIGTERM.
// Hostile clients are bounded with cpp-httplib's own settings (timeouts, keep-alive, body limit,
// TCP_NODELAY, a thread per connection from a large pool) plus a budget for the bodies held in
// memory at once (README, "kaisim serve").

#include <httplib.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>
#include <thread>

#include "commands.hpp"
#include "sim/api/fair_share_simulator.hpp"
#include "web_routes.hpp"

namespace kaisim::cli {
namespace {

struct ServeOptions {
  int port = 8080;
  std::string bind = "127.0.0.1";
  bool enable_cors = false;
  int threads = 512;            // connections served at once, each by its own thread
  double max_body_mb = 16;      // larger bodies get 413 (a 10,000-queue request is about 4 MB)
  double body_budget_mb = 256;  // bodies held in memory at once; past it new bodies get 503
  int timeout_s =
      5;  // a client silent this long (mid-request, or idle between requests) is dropped
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

// Bytes of request bodies held in memory by all connections together.
class BodyBudget {
 public:
  explicit BodyBudget(std::size_t bytes) : left_(static_cast<std::int64_t>(bytes)) {}
  bool take(std::size_t n) {
    if (left_.fetch_sub(static_cast<std::int64_t>(n)) >= static_cast<std::int64_t>(n)) return true;
    left_.fetch_add(static_cast<std::int64_t>(n));
    return false;
  }
  void give(std::size_t n) { left_.fetch_add(static_cast<std::int64_t>(n)); }

 private:
  std::atomic<std::int64_t> left_;
};

void handle_simulate(const httplib::Request& req, httplib::Response& res,
                     const httplib::ContentReader& content, bool cors, std::size_t max_body,
                     BodyBudget& budget) {
  if (cors) add_cors_headers(res);
  const std::string too_large =
      "request body over the limit of " + std::to_string(max_body >> 20) + " MiB (--max-body-mb)";
  const std::string declared = req.get_header_value("Content-Length");
  const std::size_t length = declared.empty() ? 0 : std::strtoull(declared.c_str(), nullptr, 10);
  if (length > max_body) return send_error(res, 413, too_large);
  std::string body;
  std::size_t held = 0;
  struct Release {
    BodyBudget& budget;
    const std::size_t& held;
    ~Release() { budget.give(held); }
  } release{budget, held};
  bool over_budget = false, over_limit = false;
  // A declared length is reserved at once (appending a 5 MB body in 4 KB pieces cost a fifth of
  // the request's time), with room for the JSON reader's padding. That is address space only:
  // pages become memory as bytes arrive, and the budget counts the bytes that arrived, so a
  // client that declares 16 MiB and sends nothing holds nothing.
  if (length > 0) body.reserve(length + sim::io::kReadPadding);
  content([&](const char* data, std::size_t piece) {
    if (held + piece > max_body) return !(over_limit = true);  // a chunked body can say no length
    if (!budget.take(piece)) return !(over_budget = true);
    held += piece;
    body.append(data, piece);
    return true;
  });
  if (over_limit) return send_error(res, 413, too_large);
  if (over_budget)
    return send_error(res, 503, "server busy: too many request bodies in memory, retry later");
  sim::Diagnostics diagnostics;
  diagnostics.strict = global_options().strict;
  try {
    res.set_content(sim::api::answer_simulate_request(body, "request", false, diagnostics),
                    "application/json");
  } catch (const sim::Error& e) {
    return send_error(res, 400, e.what());
  } catch (const std::bad_alloc&) {
    return send_error(res, 503, "out of memory for this request, retry later");
  }
  for (const std::string& warning : diagnostics.warnings)
    std::cerr << "kaisim serve: warning: " << warning << "\n";
}

void install_routes(httplib::Server& server, const ServeOptions& options, BodyBudget& budget) {
  const bool cors = options.enable_cors;
  const auto max_body = static_cast<std::size_t>(options.max_body_mb * 1048576.0);
  server.Post("/simulate",
              [cors, max_body, &budget](const httplib::Request& req, httplib::Response& res,
                                        const httplib::ContentReader& content) {
                handle_simulate(req, res, content, cors, max_body, budget);
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
  // An exception out of a handler is kaisim's bug: a 500 that says so, never its text in a header.
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res,
                                  std::exception_ptr) { send_error(res, 500, "internal error"); });
}

void configure(httplib::Server& server, const ServeOptions& options) {
  // Each connection holds a thread while it is open; connections beyond the pool wait until a
  // thread is free, which the timeouts below guarantee.
  const auto threads = static_cast<std::size_t>(options.threads);
  server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server.set_tcp_nodelay(true);  // else a keep-alive answer waits for the client's delayed ACK
  server.set_read_timeout(options.timeout_s, 0);
  server.set_write_timeout(options.timeout_s, 0);
  server.set_keep_alive_timeout(options.timeout_s);
  server.set_keep_alive_max_count(1000);
  server.set_payload_max_length(static_cast<std::size_t>(options.max_body_mb * 1048576.0));
}

int run_serve(const ServeOptions& options) {
  // Block SIGINT/SIGTERM here so the server threads never see them; this thread waits for them.
  // A shell may start us with SIGINT ignored (background jobs); ignored signals are discarded even
  // when blocked, so restore the default disposition before waiting for them.
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGPIPE, SIG_IGN);  // a client that goes away mid-answer must not end the server
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  BodyBudget budget(static_cast<std::size_t>(options.body_budget_mb * 1048576.0));
  httplib::Server server;
  configure(server, options);
  install_routes(server, options, budget);
  install_web_routes(server, {options.replay});
  int port = options.port;
  if (port == 0) {
    port = server.bind_to_any_port(options.bind);
  } else if (!server.bind_to_port(options.bind, port)) {
    port = -1;
  }
  if (port < 0) {
    const int e = errno;
    throw sim::Error(sim::ErrorCode::IO,
                     "cannot listen on " + options.bind + ":" + std::to_string(options.port) +
                         (e ? std::string(": ") + std::strerror(e) : std::string()) +
                         " (--bind takes a local address such as 127.0.0.1 or 0.0.0.0)");
  }
  std::thread listener([&server] { server.listen_after_bind(); });
  // stop() is a no-op until the accept loop runs, so announce readiness only once it does.
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::cerr << "kaisim serve: listening on http://" << options.bind << ":" << port << "/simulate"
            << std::endl;
  std::cerr << "kaisim serve: web view at http://" << options.bind << ":" << port << "/"
            << std::endl;

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
  cmd->add_flag("--enable-cors", options->enable_cors,
                "send CORS headers, as KAI's -enable-cors does");
  cmd->add_option("--max-connections", options->threads,
                  "connections served at once (one thread each); more wait until one closes")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--max-body-mb", options->max_body_mb,
                  "largest request body in MiB; larger get 413")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 1024.0));
  cmd->add_option(
         "--timeout", options->timeout_s,
         "seconds a connection may stay silent (reading a request, or idle between requests)")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  cmd->add_option("--replay", options->replay,
                  "a `kaisim replay --out` folder for the web view's replay viewer");
  return [options] { return run_serve(*options); };
}

}  // namespace kaisim::cli
