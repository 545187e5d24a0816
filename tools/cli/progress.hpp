#pragma once
// A progress bar on stderr for long replays, in the style of tqdm and indicatif: shown only on a
// terminal, only once a run has taken about a second, and never with --quiet.

#include <chrono>
#include <functional>
#include <string>

#include "sim/api/replay.hpp"

namespace kaisim::cli {

class ProgressBar {
 public:
  /// `enabled`: stderr is a terminal and the user did not ask for quiet.
  explicit ProgressBar(bool enabled);
  /// The callback for ReplayOptions::progress (empty when disabled).
  std::function<void(const sim::api::ReplayProgress&)> callback();

  /// The bar's text for `p` after `elapsed_s` of wall time, `width` characters of bar.
  static std::string render(const sim::api::ReplayProgress& p, double elapsed_s, int width = 20);

 private:
  void update(const sim::api::ReplayProgress& p);
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
};

/// Whether standard error is a terminal.
bool stderr_is_terminal();

}  // namespace kaisim::cli
